"""An agent that takes its time, and marks each task run it finishes (for cancellation tests)."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path


class SlowAgent:
    def act(self, observation):
        time.sleep(0.3)
        marks = Path(os.environ["ASSAY_TEST_MARKS"])
        marks.mkdir(exist_ok=True)
        (marks / uuid.uuid4().hex).touch()
        return {"finish": "done"}
