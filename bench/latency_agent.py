"""An agent that waits as a model would (20 ms per action) before finishing: for throughput figures."""

from __future__ import annotations

import time


class LatencyAgent:
    def act(self, observation):
        time.sleep(0.02)
        return {"finish": "done"}
