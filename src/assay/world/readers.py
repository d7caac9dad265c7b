"""Read-only copies of a snapshot's starting state, for the rows as they were before a task run
changed them (the final-state hash, the state diff).

One copy per thread that ever read cost a whole image a thread: an OpenEnv server holds a thread a
session, so a thousand sessions held a thousand copies of the world for reads of a few rows. The
copies are kept here instead, each lent to one thread at a time (one SQLite connection used by two
threads at once can deadlock, `assay.world.shared`), so there are only as many as were ever read
at once.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Readers:
    """The idle read-only copies of one image; `reading` lends one, opened if none is idle."""

    def __init__(self) -> None:
        self._idle: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._pid = os.getpid()

    @contextmanager
    def reading(self, image: bytes) -> Iterator[sqlite3.Connection]:
        """A copy of `image` that only this thread uses until the block ends."""
        with self._lock:
            if self._pid != os.getpid():  # a forked child: its parent's copies are not its own
                self._idle, self._pid = [], os.getpid()
            reader = self._idle.pop() if self._idle else None
        if reader is None:
            reader = _opened(image)
        try:
            yield reader
        finally:
            with self._lock:
                self._idle.append(reader)

    @property
    def idle(self) -> int:
        return len(self._idle)


def _opened(image: bytes) -> sqlite3.Connection:
    reader = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    reader.deserialize(image)
    reader.execute("PRAGMA query_only = ON")
    return reader
