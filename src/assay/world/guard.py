"""Locks a SQLite connection so that what runs on it can only read, and only for so long.

`mode=ro` is not enough on its own: an in-memory copy has no file to open read-only, and even a
read-only connection may ATTACH another database or change its own pragmas. The authorizer below
allows only reading actions, whatever the statement text says.
"""

from __future__ import annotations

import secrets
import sqlite3
from typing import Any

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


TRACKING_WRITES, READING_ONLY, OWN = "tracking writes", "reading only", "own"


class Gate:
    """The one authorizer of a world copy's connection, installed when the copy is opened and kept
    for its whole life, its `mode` switched as the task run goes on:

    - `TRACKING_WRITES` (a task run acting): every table a statement may change is recorded in
      `written`, every schema object it may create, drop or alter (or a pragma that the change
      log of `assay.world.changes` depends on) in `reshaped`, each other action a rollback does
      not undo (UNSETTLING) in `unsettled`; `total_changes()` is refused (HISTORY_FUNCTIONS).
    - `READING_ONLY` (the checks): only reading actions are allowed.
    - `OWN` (assay's own statements: reads of the copy, the lock's savepoint, putting it back):
      anything but `total_changes()`; the tables a statement may change are still recorded.

    SQLite asks the authorizer only when it prepares a statement. Setting another authorizer (or
    a flag pragma such as `query_only`) makes it prepare every statement of the connection again,
    calling the authorizer in Python for each column read: a tenth of a small task run's work,
    a fifth of a retail-sized one's. With one authorizer for life and no such pragma, a copy used
    again runs its statements as they were prepared, so:

    - the tables any statement prepared on the connection may change are kept for its life
      (`ever_written`), and each task run's `written` starts from them (`begin`): a statement
      prepared in an earlier task run and run again now is not seen again;
    - a copy whose statements reshaped or unsettled it is closed, never used again;
    - the checks' queries and assay's own statements are marked (`READ_MARK`, `OWN_MARK`), so
      no statement prepared in one mode is ever what another mode runs (but reads).
    """

    __slots__ = ("ever_written", "mode", "reshaped", "unsettled", "written")

    def __init__(self) -> None:
        self.mode = OWN
        self.ever_written: set[str] = set()
        self.written: set[str] = set()
        self.reshaped: set[str] = set()
        self.unsettled: set[int] = set()

    def begin(self) -> None:
        """A task run starts acting: what it writes, reshapes and unsettles is recorded anew."""
        self.written = set(self.ever_written)
        self.reshaped = set()
        self.unsettled = set()
        self.mode = TRACKING_WRITES

    def __call__(self, action: int, first: str | None, second: str | None, *_: object) -> int:
        mode = self.mode
        if mode is READING_ONLY:
            return _authorize_read(action, first, second)
        if action in WRITING and first:
            self.ever_written.add(first)
            self.written.add(first)
        elif action == sqlite3.SQLITE_FUNCTION and second and second.lower() in HISTORY_FUNCTIONS:
            return sqlite3.SQLITE_DENY
        elif mode is OWN:
            pass
        elif action in RESHAPING or (
            action == sqlite3.SQLITE_PRAGMA and (first or "").lower() in TRACKING
        ):
            self.reshaped.add(first or "")
        elif action in UNSETTLING:
            self.unsettled.add(action)
        return sqlite3.SQLITE_OK


# Put before every query a check runs on a locked copy, and before each statement of assay's own
# that does more than read: texts no tool can have run (the token is drawn per process), so a
# check's query is prepared under READING_ONLY whatever ran before it, and a tool's BEGIN, say,
# is never one prepared under OWN, and so is seen while tracking.
_TOKEN = secrets.token_hex(8)
READ_MARK = f"/* check {_TOKEN} */ "
OWN_MARK = f"/* own {_TOKEN} */ "


class GatedConnection(sqlite3.Connection):
    """A world copy's connection: its `gate` is its one authorizer for life, and another cannot
    be set in its place (`Gate`)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.gate = Gate()
        super().set_authorizer(self.gate)

    def set_authorizer(self, *_: object, **__: object) -> None:
        raise sqlite3.ProgrammingError("a world copy's authorizer cannot be changed")


_LOCKED = OWN_MARK + "SAVEPOINT locked"
_UNDO = OWN_MARK + "ROLLBACK TO locked"


def lock_readonly(connection: GatedConnection) -> int:
    """From now on the connection can read and nothing else, and no value it makes is huge.

    Its authorizer refuses every action but reading as each statement is prepared. The count of
    the connection's changes is returned: a query after which it differs wrote past the
    authorizer, and `undo_writes` takes back what it wrote. (`PRAGMA query_only` is not the
    second layer: setting it makes SQLite prepare every statement of the connection again.)"""
    gate = connection.gate
    gate.mode = OWN
    connection.execute(_LOCKED)
    connection.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, VALUE_LIMIT)
    gate.mode = READING_ONLY
    cap_heap()
    return connection.total_changes


def undo_writes(connection: GatedConnection) -> int:
    """The state as it was locked (`lock_readonly`), whatever ran since; the count of changes to
    compare with from now on (undoing does not lower it)."""
    gate = connection.gate
    mode, gate.mode = gate.mode, OWN
    try:
        connection.execute(_UNDO)
    finally:
        gate.mode = mode
    return connection.total_changes


class QueryTimeout(Exception):
    """A query ran past its time limit and was stopped."""


class QueryLimit(Exception):
    """A query passed a limit on what it may hold (a value's size, memory, columns) and was stopped."""


class QueryRefused(Exception):
    """The database refused a read-only query because it tried to do more than read."""


class QueryFailed(Exception):
    """A read-only query failed for another reason (a missing table, a type error)."""


WROTE = "refused: the query changed the world's state"
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
