"""Agents that misbehave, for the tests of agents in a process of their own (imported by path)."""

from __future__ import annotations

import contextlib
import gc
import os
import sqlite3
import sys
import time


class Forger:
    """Looks for the world's database among the objects of its process and writes the goal row."""

    def act(self, observation):
        found = 0
        for thing in gc.get_objects():
            kind = type(thing)
            if isinstance(thing, sqlite3.Connection) or (
                str(kind.__module__).startswith("psycopg") and kind.__name__ == "Connection"
            ):
                found += 1
                with contextlib.suppress(Exception):  # a read-only one refuses
                    thing.execute("INSERT INTO notes (text) VALUES ('hello')")
        return {"finish": f"found {found} connections"}


class Polite:
    """Calls a tool with the JSON form, prints as it goes, and finishes."""

    def act(self, observation):
        print("thinking out loud on stdout")
        if observation.turn == 0:
            return {"call": {"tool": "add_note", "args": {"text": "hello"}}}
        return {"finish": f"done: {observation.events[0].result}"}


class InitRaises:
    def __init__(self):
        raise ValueError("no model configured")

    def act(self, observation):
        return {"finish": ""}


class Exits:
    def act(self, observation):
        sys.exit(5)


class Interrupts:
    def act(self, observation):
        raise KeyboardInterrupt


class Dies:
    def act(self, observation):
        os._exit(3)


class Circular:
    def act(self, observation):
        args = {"text": "hello"}
        args["again"] = args
        return {"call": {"tool": "add_note", "args": args}}


class Stuck:
    def act(self, observation):
        time.sleep(600)


class Where:
    """Tells what its process can see of where the world and the records live."""

    def act(self, observation):
        seen = {key: os.environ.get(key) for key in ("ASSAY_WORLD_DB", "ASSAY_STORE")}
        return {"finish": f"{seen} {os.getpid()}"}
