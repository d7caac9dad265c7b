"""Locks a SQLite connection so that what runs on it can only read, and only for so long.

`mode=ro` is not enough on its own: an in-memory copy has no file to open read-only, and even a
read-only connection may ATTACH another database or change its own pragmas. The authorizer below
allows only reading actions, whatever the statement text says.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

READING = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)
REFUSED_FUNCTIONS = frozenset({"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"})
WRITING = frozenset({sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE})


def _authorize_read(action: int, first: str | None, second: str | None, *_: object) -> int:
    if action not in READING:
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_FUNCTION and second and second.lower() in REFUSED_FUNCTIONS:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def lock_readonly(connection: sqlite3.Connection) -> None:
    """From now on the connection can read and nothing else."""
    connection.execute("PRAGMA query_only = ON")
    connection.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    connection.set_authorizer(_authorize_read)


def track_writes(connection: sqlite3.Connection, written: set[str]) -> None:
    """Record in `written` every table a statement prepared on this connection may change."""

    def authorize(action: int, table: str | None, *_: object) -> int:
        if action in WRITING and table:
            written.add(table)
        return sqlite3.SQLITE_OK

    connection.set_authorizer(authorize)


class QueryTimeout(Exception):
    """A query ran past its time limit and was stopped."""


class QueryRefused(Exception):
    """The database refused a read-only query because it tried to do more than read."""


class QueryFailed(Exception):
    """A read-only query failed for another reason (a missing table, a type error)."""


# What SQLite says when the lock above stops a statement; anything else is a failed query.
REFUSAL_TEXTS = ("not authorized", "readonly", "attached databases")


def refused_or_failed(error: sqlite3.Error) -> QueryRefused | QueryFailed:
    """The backend-neutral form of an error from a locked connection (the PostgreSQL guard's too)."""
    text = str(error)
    if "one statement at a time" in text:
        return QueryRefused("refused: one statement at a time")
    if any(marker in text for marker in REFUSAL_TEXTS):
        return QueryRefused(f"refused: {text}")
    return QueryFailed(text)


@contextmanager
def deadline(connection: sqlite3.Connection, seconds: float) -> Iterator[None]:
    """Interrupt any statement that runs longer than `seconds`."""
    end = time.monotonic() + seconds
    expired: Callable[[], int] = lambda: 1 if time.monotonic() > end else 0  # noqa: E731
    connection.set_progress_handler(expired, 10_000)
    try:
        yield
    except sqlite3.OperationalError as error:
        if "interrupted" in str(error):
            raise QueryTimeout(f"stopped after {seconds:g}s") from None
        raise
    finally:
        connection.set_progress_handler(None, 0)
