"""SQLite copies used again: a task run's copy runs in one transaction, and when the task run is
over the transaction is rolled back, which leaves the copy byte for byte the snapshot's image, so
the next task run starts from it without a new connection. A new connection would parse the whole
schema again on its first statement and prepare every statement anew: most of a small world's
reset.

A copy is used again only if what its task run did is undone by the rollback: a copy whose task
run ended or began a transaction itself, set a pragma, changed its schema or touched the
connection's own settings is closed, and the next task run gets a newly deserialized one. The
counters SQLite keeps per connection are set back as a new connection has them (`last_insert_rowid()`
and `changes()` 0); `total_changes()`, which counts a connection's whole life, is refused on world
copies (`assay.world.guard`).
"""

from __future__ import annotations

import os
import sqlite3
import threading

from assay.world.guard import OWN, OWN_MARK, GatedConnection
from assay.world.snapshot import Snapshot

IDLE_BYTES = 256 << 20  # idle copies kept per world, by their images' size (at least one)
# run last in the task run's transaction: they leave last_insert_rowid() and changes() at 0, as
# on a new connection, and the row goes with the rollback
_COUNTERS_ZEROED = tuple(
    OWN_MARK + statement  # statements of assay's own, which no tool can run as they are
    for statement in (
        "INSERT OR REPLACE INTO sandbox_actions (id, turn, kind, status) VALUES (0, 0, '', '')",
        "UPDATE sandbox_actions SET id = id WHERE 0",
        "ROLLBACK",
    )
)
_BEGIN = OWN_MARK + "BEGIN"
# set back to what a new connection has: the checks' lock and the hash change two, and a tool that
# reaches past `world.db` could change any
_LIMITS = tuple(value for name, value in vars(sqlite3).items() if name.startswith("SQLITE_LIMIT_"))


class CopyPool:
    """The idle connections of one snapshot's copies, each rolled back to the starting state."""

    def __init__(self, snapshot: Snapshot):
        self.snapshot = snapshot
        self.keep = max(1, IDLE_BYTES // max(len(snapshot.image), 1))
        self._idle: list[GatedConnection] = []
        self._limits: dict[int, int] = {}
        self._lock = threading.Lock()
        self._pid = os.getpid()

    def take(self) -> GatedConnection:
        """A connection holding exactly the starting state, inside the transaction its task run
        is to run in."""
        with self._lock:
            connection = self._idle.pop() if self._idle and self._pid == os.getpid() else None
        if connection is None:
            connection = self.snapshot.open_copy()
            if not self._limits:
                self._limits = {limit: connection.getlimit(limit) for limit in _LIMITS}
        connection.execute(_BEGIN)
        return connection

    def give_back(self, connection: GatedConnection, settled: bool) -> None:
        """The task run is over: its copy is rolled back and kept for the next one, or closed if
        its task run did what a rollback does not undo (`settled` false) or enough are idle."""
        if not (settled and self._unchanged(connection)) or self._pid != os.getpid():
            connection.close()
            return
        connection.gate.mode = OWN  # past the checks' lock, which refuses the statements below
        for limit, value in self._limits.items():
            connection.setlimit(limit, value)
        for statement in _COUNTERS_ZEROED:
            connection.execute(statement)
        with self._lock:
            if len(self._idle) < self.keep:
                self._idle.append(connection)
                return
        connection.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()

    @staticmethod
    def _unchanged(connection: sqlite3.Connection) -> bool:
        """Still in the transaction it was given in, with the settings a new connection has."""
        return (
            connection.in_transaction
            and connection.isolation_level is None
            and connection.row_factory is None
            and connection.text_factory is str
        )
