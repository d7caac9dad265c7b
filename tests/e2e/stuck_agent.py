"""An agent that gives up at once, except on the task named by $STUCK_TASK_ID: there it
waits until its process is killed, or orphaned by the kill of its parent, leaving a task run in
flight."""

from __future__ import annotations

import os
import time

from assay import Finish

PATIENCE_S = 60  # so that nothing is left behind for long if the test itself goes wrong


class StuckAgent:
    def act(self, observation):
        if observation.task_id == os.environ.get("STUCK_TASK_ID"):
            parent, deadline = os.getppid(), time.monotonic() + PATIENCE_S
            while os.getppid() == parent and time.monotonic() < deadline:
                time.sleep(0.05)
        return Finish(finish="I could not do it.")
