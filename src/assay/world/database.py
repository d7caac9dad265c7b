"""A world's database as tools and verifiers see it: rows as dicts, values bound as parameters."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from assay.world.guard import (
    OWN,
    READ_MARK,
    WROTE,
    GatedConnection,
    QueryRefused,
    deadline,
    lock_readonly,
    refused_or_failed,
    undo_writes,
)

if TYPE_CHECKING:
    from assay.world.changes import LoggedRows
    from assay.world.snapshot import Snapshot

Params = Sequence[Any] | Mapping[str, Any]
UNCAPPED = 2**31 - 1  # SQLite lowers it to the largest length it was built for


class Written(NamedTuple):
    rowcount: int
    lastrowid: int | None


class ChangedRows(NamedTuple):
    """The rows a change log names in one table: as they started, and those holding them now;
    `key_unique`: whether the key asked for is unique over the whole table, at the start and now."""

    before: list[dict[str, Any]]
    after: list[dict[str, Any]]
    key_unique: bool


class Database(Protocol):
    """What tools and verifiers may call; both backends provide it."""

    backend: str

    def execute(self, sql: str, *params: Any) -> Written: ...

    def rows(self, sql: str, *params: Any) -> list[dict[str, Any]]: ...

    def row(self, sql: str, *params: Any) -> dict[str, Any] | None: ...

    def value(self, sql: str, *params: Any) -> Any: ...


class WorldCopy(Database, Protocol):
    """One task run's copy of the starting state, as the runtime drives it."""

    def execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    def savepoint(self) -> AbstractContextManager[None]: ...

    def lock_readonly(self) -> None: ...

    def state_hash(self, *, full: bool = False) -> str: ...

    def may_have_changed(self, table: str) -> bool:
        """False only when no statement of this task run could have changed `table`."""
        ...

    def changed_rows(self, keys: Mapping[str, Sequence[str]]) -> dict[str, ChangedRows]:
        """For each table of `keys` whose changes a log holds, the rows it names as they started
        and as they are now, and whether the table's key columns are unique; a table not in the
        answer must be read whole to be compared."""
        ...

    def table_rows(self, table: str, limit: int) -> Rows:
        """Column names and the first `limit` rows of `table` (every row for a negative limit), as
        the copy's own read (the state diff's), not a check's."""
        ...

    def run_limited(
        self, seconds: float, sql: str, params: Params, max_rows: int | None = None
    ) -> tuple[list[str], list[tuple[Any, ...]]]: ...

    def close(self) -> None: ...


def bind(params: tuple[Any, ...]) -> Params:
    """`db.rows(sql, 1, 2)` binds positionally; `db.rows(sql, {"a": 1})` binds by name."""
    if len(params) == 1 and isinstance(params[0], Mapping):
        return params[0]
    return params


Rows = tuple[list[str], list[tuple[Any, ...]]]


class Queries:
    """`rows`, `row` and `value` for any class that can `fetch(sql, params)` column names and rows."""

    def fetch(self, sql: str, params: Params) -> Rows:
        raise NotImplementedError

    def rows(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        names, found = self.fetch(sql, bind(params))
        return [dict(zip(names, row, strict=True)) for row in found]

    def row(self, sql: str, *params: Any) -> dict[str, Any] | None:
        found = self.rows(sql, *params)
        return found[0] if found else None

    def value(self, sql: str, *params: Any) -> Any:
        _, found = self.fetch(sql, bind(params))
        return found[0][0] if found else None


class SqliteDatabase:
    """A SQLite connection with the Database methods; the world owns its lifetime."""

    backend = "sqlite"
    errors: tuple[type[Exception], ...] = (sqlite3.Error,)

    def __init__(self, connection: sqlite3.Connection):
        self.connection = connection

    def execute(self, sql: str, *params: Any) -> Written:
        cursor = self.connection.execute(sql, bind(params))
        return Written(cursor.rowcount, cursor.lastrowid)

    def execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.connection.executemany(sql, rows)

    def run_script(self, text: str) -> None:
        self.connection.executescript(text)

    def rows(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        cursor = self.connection.execute(sql, bind(params))
        names = [column[0] for column in cursor.description or ()]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def row(self, sql: str, *params: Any) -> dict[str, Any] | None:
        cursor = self.connection.execute(sql, bind(params))
        found = cursor.fetchone()
        if found is None:
            return None
        return dict(zip([column[0] for column in cursor.description], found, strict=True))

    def value(self, sql: str, *params: Any) -> Any:
        found = self.connection.execute(sql, bind(params)).fetchone()
        return None if found is None else found[0]

    def fetch(self, sql: str, params: Params) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Column names and every row, for checks that must see the whole shape of a result."""
        cursor = self.connection.execute(sql, params)
        return [column[0] for column in cursor.description or ()], cursor.fetchall()

    @contextmanager
    def savepoint(self) -> Iterator[None]:
        """Everything inside is undone if it raises."""
        self.connection.execute("SAVEPOINT tool_call")
        try:
            yield
        except BaseException:
            self.connection.execute("ROLLBACK TO tool_call")
            self.connection.execute("RELEASE tool_call")
            raise
        self.connection.execute("RELEASE tool_call")

    def changed_rows(self, keys: Mapping[str, Sequence[str]]) -> dict[str, ChangedRows]:
        """None logged: a database of its own has no change log, so tables are compared whole."""
        return {}

    def may_have_changed(self, table: str) -> bool:
        """Always: a database of its own keeps no account of what was written to it."""
        return True

    def table_rows(self, table: str, limit: int) -> Rows:
        """Column names and the first `limit` rows of `table` (every row for a negative limit)."""
        cursor = self.connection.execute(f'SELECT * FROM "{table}" LIMIT {int(limit)}')
        return [column[0] for column in cursor.description or ()], cursor.fetchall()

    def close(self) -> None:
        self.connection.close()


class SqliteCopy(SqliteDatabase):
    """A fresh copy of a snapshot for one task run: tracks what it writes, then locks to read-only.
    `connection`: one holding exactly the snapshot's state (`assay.world.copies`), else a new one."""

    connection: GatedConnection

    def __init__(self, snapshot: Snapshot, connection: GatedConnection | None = None):
        super().__init__(snapshot.open_copy() if connection is None else connection)
        self.snapshot = snapshot
        gate = self.connection.gate
        gate.begin()
        self.written = gate.written
        self.reshaped = gate.reshaped  # a changed schema may have dropped the change log
        self.unsettled = gate.unsettled  # what a rollback does not undo: pragmas, transactions
        self.locked = False
        self._changes = -1  # the connection's count of changes when it was locked
        self._logged_rows: dict[str, LoggedRows] | None = None
        # tables read whole once locked, the diff's and the hash's read (`table_rows`)
        self._whole: dict[str, Rows] = {}

    @property
    def settled(self) -> bool:
        """Whether rolling back the task run's transaction undoes all it did to the connection."""
        return not (self.reshaped or self.unsettled)

    def release(self) -> GatedConnection | None:
        """The connection, taken from this copy (None if it was taken already): anything asked of
        the copy afterwards fails as on a closed one, so a late caller cannot reach the task run
        that uses the connection next."""
        connection, self.connection = self.connection, _released
        return None if connection is _released else connection

    def lock_readonly(self) -> None:
        self._changes = lock_readonly(self.connection)
        self.locked = True

    def may_have_changed(self, table: str) -> bool:
        """The authorizer saw every statement prepared on the copy, a trigger's included: in this
        task run, or in an earlier one on the same copy (`assay.world.guard.Gate`)."""
        return bool(self.reshaped) or any(name.lower() == table for name in self.written)

    def changed_rows(self, keys: Mapping[str, Sequence[str]]) -> dict[str, ChangedRows]:
        """The tracked tables' changed rows, read by the rowids their triggers logged (none once
        the schema changed: the log may be gone)."""
        tracked = {table: key for table, key in keys.items() if table in self.snapshot.tracked}
        if self.reshaped or not tracked:
            return {}
        with self._own_reads():
            return self.snapshot.changed_rows(self.connection, tracked, self._logged())

    def state_hash(self, *, full: bool = False) -> str:
        """Content hash of the copy; the checks' cap on a value's length does not apply to it.
        `full` reads every table it wrote to whole rather than only the rows that changed."""
        full = full or bool(self.reshaped)
        with self._own_reads():
            logged = None if full else self._logged()
            return self.snapshot.state_hash(self._read_whole, self.written, logged)

    def table_rows(self, table: str, limit: int) -> Rows:
        """The first `limit` rows of `table` (every row for a negative limit), read as the hash
        reads (uncapped, past the authorizer): once the copy is locked, a table read whole is read
        once for both."""
        if table in self._whole:
            return self._kept(table, limit)
        with self._own_reads():
            return self._kept(table, limit)

    def _read_whole(self, table: str) -> list[tuple[Any, ...]]:
        """Every row of `table`, under `_own_reads`; kept once locked (`table_rows`)."""
        return self._kept(table, -1)[1]

    def _kept(self, table: str, limit: int) -> Rows:
        """`SqliteDatabase.table_rows`, or the table as kept: a locked copy keeps a table it read
        whole."""
        if table in self._whole:
            names, rows = self._whole[table]
            return names, rows if limit < 0 else rows[:limit]
        names, rows = super().table_rows(table, limit)
        if self.locked and (limit < 0 or len(rows) < limit):
            self._whole[table] = names, rows
        return names, rows

    def _logged(self) -> dict[str, LoggedRows]:
        """The rows the change log names, as they started and now: read once when the copy is
        locked (nothing changes it after), so the state diff and the hash share one read."""
        if self._logged_rows is not None:
            return self._logged_rows
        found = self.snapshot.logged_rows(self.connection)
        if self.locked:
            self._logged_rows = found
        return found

    @contextmanager
    def _own_reads(self) -> Iterator[None]:
        """The copy's own reads (of the log too), uncapped in length and past the checks' lock."""
        gate = self.connection.gate
        capped = self.connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, UNCAPPED)
        mode, gate.mode = gate.mode, OWN
        try:
            yield
        finally:
            gate.mode = mode
            self.connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, capped)

    def run_limited(
        self, seconds: float, sql: str, params: Params, max_rows: int | None = None
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        """One query on the locked copy, its first `max_rows` rows (all when None); marked
        (`READ_MARK`), so that SQLite prepares it under the lock whatever the task run ran.

        QueryRefused, QueryFailed, QueryLimit or QueryTimeout when it fails; QueryRefused, and
        what it wrote taken back, if it changed the state past the lock's authorizer.
        """
        failure: Exception | None = None
        try:
            with deadline(self.connection, seconds):
                cursor = self.connection.execute(READ_MARK + sql, params)
                try:
                    names = [column[0] for column in cursor.description or ()]
                    found = cursor.fetchall() if max_rows is None else cursor.fetchmany(max_rows)
                finally:
                    cursor.close()  # ends the statement before the watchdog lets go of it
        except sqlite3.Error as error:
            failure = refused_or_failed(error)
        if self.locked and self.connection.total_changes != self._changes:
            self._changes = undo_writes(self.connection)
            raise QueryRefused(WROTE)
        if failure is not None:
            raise failure
        return names, found


class _Released:
    """Stands for a connection handed on: every use fails as on a closed sqlite3 connection."""

    def __getattr__(self, name: str) -> Any:
        raise sqlite3.ProgrammingError("Cannot operate on a closed database.")


_released: Any = _Released()
