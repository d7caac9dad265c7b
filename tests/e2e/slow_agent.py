"""An agent that thinks for a moment and then gives up: a run slow enough to interrupt."""

from __future__ import annotations

import time

from assay import Finish


class SlowAgent:
    def act(self, observation):
        time.sleep(0.1)
        return Finish(finish="I could not do it.")
