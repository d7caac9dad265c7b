"""An agent that takes its time, and says on stderr each time it finishes a task run (for
cancellation tests: its sandbox shows it no file of the test's to mark)."""

from __future__ import annotations

import sys
import time

FINISHED = "slow agent finished a task run"


class SlowAgent:
    def act(self, observation):
        time.sleep(0.3)
        print(FINISHED, file=sys.stderr, flush=True)
        return {"finish": "done"}
