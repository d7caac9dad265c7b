"""An agent that fails a different way on each of a few tasks, and the first time it is made.

It prints on stdout as it goes: that must reach neither the channel nor `assay run --json`. It
marks that it was made in its temporary directory: its sandbox's own /tmp, which outlives a restart
of its process (each worker's agent has its own).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

FAILS = {
    "delivered-spend": "exit",
    "email-after-failure": "interrupt",
    "email-tracking": "die",
    "goodwill-credit": "circular",
    "refund-double-charge": "stuck",
}


class ChaosAgent:
    def __init__(self):
        first = Path(tempfile.gettempdir()) / "made-once"
        try:
            os.close(os.open(first, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return
        raise RuntimeError("the first one breaks")

    def act(self, observation):
        print(f"working on {observation.task_id}")
        how = FAILS.get(observation.task_id)
        if how == "exit":
            sys.exit(5)
        if how == "interrupt":
            raise KeyboardInterrupt
        if how == "die":
            os._exit(3)
        if how == "circular":
            args = {"order_id": "A-1"}
            args["self"] = args
            return {"call": {"tool": "find_order", "args": args}}
        if how == "stuck":
            time.sleep(600)
        return {"finish": "I could not do it."}
