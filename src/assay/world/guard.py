"""Locks a SQLite connection so that what runs on it can only read, and only for so long.

`mode=ro` is not enough on its own: an in-memory copy has no file to open read-only, and even a
read-only connection may ATTACH another database or change its own pragmas. The authorizer below
allows only reading actions, whatever the statement text says.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from assay.world.limits import VALUE_LIMIT, cap_heap, watchdog

READING = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)
REFUSED_FUNCTIONS = frozenset({"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"})
# a connection's count of every change in its life, not the world's state: copies are used again
# (`assay.world.copies`), so it would differ from one task run to the next
HISTORY_FUNCTIONS = frozenset({"total_changes"})
WRITING = frozenset({sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE})
RESHAPING = frozenset(
    getattr(sqlite3, f"SQLITE_{verb}_{thing}")
    for verb in ("CREATE", "DROP")
    for thing in ("INDEX", "TABLE", "TRIGGER", "VIEW", "TEMP_INDEX", "TEMP_TABLE", "TEMP_TRIGGER")
) | {sqlite3.SQLITE_ALTER_TABLE, sqlite3.SQLITE_CREATE_VTABLE, sqlite3.SQLITE_DROP_VTABLE}
REFUSED_OR_HISTORY = REFUSED_FUNCTIONS | HISTORY_FUNCTIONS
TRACKING = frozenset({"recursive_triggers"})  # pragmas the change log depends on
# what a rollback of a copy's transaction does not undo (with RESHAPING): a copy that did any of
# them is not used again
UNSETTLING = frozenset(
    {
        sqlite3.SQLITE_PRAGMA,
        sqlite3.SQLITE_TRANSACTION,
        sqlite3.SQLITE_ATTACH,
        sqlite3.SQLITE_DETACH,
    }
)


def _authorize_read(action: int, first: str | None, second: str | None, *_: object) -> int:
    if action not in READING:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_FUNCTION and second and second.lower() in REFUSED_OR_HISTORY:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


Authorizer = Callable[..., int]


def lock_readonly(connection: sqlite3.Connection) -> Authorizer:
    """From now on the connection can read and nothing else, and no value it makes is huge.
    The authorizer it installs is returned."""
    connection.set_authorizer(None)  # the pragma is ours, not the task run's (`track_writes`)
    connection.execute("PRAGMA query_only = ON")
    connection.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, VALUE_LIMIT)
    connection.set_authorizer(_authorize_read)
    cap_heap()
    return _authorize_read


def track_writes(
    connection: sqlite3.Connection,
    written: set[str],
    reshaped: set[str],
    unsettled: set[int],
) -> Authorizer:
    """Record in `written` every table a statement prepared on this connection may change, in
    `reshaped` every schema object one may create, drop or alter (or a pragma that the change log
    of `assay.world.changes` depends on), and in `unsettled` each other kind of action that a
    rollback does not undo (UNSETTLING). `total_changes()` is refused (HISTORY_FUNCTIONS)."""

    def authorize(action: int, first: str | None, second: str | None, *_: object) -> int:
        if action in WRITING and first:
            written.add(first)
        elif action in RESHAPING or (
            action == sqlite3.SQLITE_PRAGMA and (first or "").lower() in TRACKING
        ):
            reshaped.add(first or "")
        elif action in UNSETTLING:
            unsettled.add(action)
        elif action == sqlite3.SQLITE_FUNCTION and second and second.lower() in HISTORY_FUNCTIONS:
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK

    connection.set_authorizer(authorize)
    return authorize


class QueryTimeout(Exception):
    """A query ran past its time limit and was stopped."""


class QueryLimit(Exception):
    """A query passed a limit on what it may hold (a value's size, memory, columns) and was stopped."""


class QueryRefused(Exception):
    """The database refused a read-only query because it tried to do more than read."""


class QueryFailed(Exception):
    """A read-only query failed for another reason (a missing table, a type error)."""


# What SQLite says when the lock above stops a statement; anything else is a failed query.
# VACUUM (INTO a file too) writes: the open transaction or the authorizer stops it first
VACUUM_TEXTS = ("cannot VACUUM", "authorization denied")
REFUSAL_TEXTS = ("not authorized", "readonly", "attached databases", *VACUUM_TEXTS)
TOO_BIG = f"stopped: a value passed the {VALUE_LIMIT >> 20} MB limit"
OUT_OF_MEMORY = "stopped: SQLite ran out of the memory this process may use"


def refused_or_failed(error: sqlite3.Error) -> QueryRefused | QueryFailed | QueryLimit:
    """The backend-neutral form of an error from a locked connection (the PostgreSQL guard's too)."""
    text = str(error)
    if "one statement at a time" in text:
        return QueryRefused("refused: one statement at a time")
    if any(marker in text for marker in REFUSAL_TEXTS):
        return QueryRefused(f"refused: {text}")
    if "too big" in text:
        return QueryLimit(TOO_BIG)
    return QueryFailed(text)


class deadline:  # named as the function it replaced: `with deadline(connection, seconds):`
    """Interrupt any statement that runs longer than `seconds`; a query out of memory is stopped.

    A watchdog thread interrupts the connection at the deadline; SQLite stops at its next step, so
    one function call runs to its end (the length limit keeps such a call short). A class rather
    than a generator: every check query pays for entering and leaving it (a microsecond less).
    """

    __slots__ = ("connection", "number", "seconds")

    def __init__(self, connection: sqlite3.Connection, seconds: float):
        self.connection = connection
        self.seconds = seconds
        self.number = -1

    def __enter__(self) -> None:
        self.number = watchdog.arm(self.connection, self.seconds)

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, _: object
    ) -> bool:
        watchdog.disarm(self.number)  # before anything else: a signal cannot skip it
        if isinstance(error, sqlite3.OperationalError) and "interrupted" in str(error):
            raise QueryTimeout(f"stopped after {self.seconds:g}s") from None
        if isinstance(error, MemoryError):
            raise QueryLimit(OUT_OF_MEMORY) from None
        return False
