"""The starting state's copy that every task run of a process reads, used by one thread at a time.

Task runs in threads of their own (an OpenEnv session each, the HTTP API's pool) read the one
read-only copy of the starting state at once. One SQLite connection used by two threads at once
can deadlock the process: a statement that calls back into Python (the read-only authorizer)
holds the connection's mutex while it waits for the interpreter's lock, which another thread holds
while it waits for that mutex (the sqlite3 module takes it without letting go of the interpreter
lock, to read a limit before preparing a statement). A Python lock around each use breaks the
cycle: a thread waiting for it lets go of the interpreter's lock.
"""

from __future__ import annotations

import threading
from typing import Any


class SharedCopy:
    """`copy`, each of its methods called under one lock; its other attributes as they are."""

    def __init__(self, copy: Any):
        self._copy = copy
        self._lock = threading.RLock()

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._copy, name)
        if not callable(found):
            return found

        def one_at_a_time(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return found(*args, **kwargs)

        return one_at_a_time
