"""The statements of `assay run`'s path (`assay.runs.store.statements`) run by name, one transaction
at a time: on an SQLite file through the standard library's sqlite3, compiled ahead of time
(`sqlite_statements`), so that such a run never imports SQLAlchemy (its import is most of a short
run's time); on PostgreSQL through the driver's connection from the engine's pool, each statement
compiled the first time it runs. The methods that use them are the same for both."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import namedtuple
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.runs.store.driver import Prepared

if TYPE_CHECKING:
    from sqlalchemy import Engine

# as `location._sqlite_connected` sets them on SQLAlchemy's connections
PRAGMAS = (
    "PRAGMA foreign_keys = ON",
    "PRAGMA busy_timeout = 10000",
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
)
TABLES = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"


def _json_text(value: Any) -> str:
    return json.dumps(value)  # SQLAlchemy's JSON: None is the text 'null' (none_as_null is off)


def _json_value(value: Any) -> Any:
    # SQLite's own JSON functions may hand back a number as it is: SQLAlchemy keeps it too
    return json.loads(value) if isinstance(value, str | bytes) else value


def _optional(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else convert(value)


# the processing SQLAlchemy's SQLite dialect gives each kind of column, by the generator's names
BINDS = {"json": _json_text, "bool": _optional(int), "float": _optional(float)}
RESULTS = {"json": _json_value, "bool": _optional(bool)}


class Named:
    """One statement ready to run: its parameters, and its rows as named tuples of its columns."""

    def __init__(
        self,
        prepared: Prepared,
        columns: tuple[str, ...],
        processors: tuple[Callable[[Any], Any] | None, ...],
    ):
        self.prepared = prepared
        # mypy reads a namedtuple's fields only from a literal; these are the statement's columns
        row_type: Any = namedtuple("Row", columns, rename=True)  # type: ignore[misc]
        self._row: Callable[[Iterable[Any]], tuple[Any, ...]] = row_type._make if columns else tuple
        self._process = [(index, process) for index, process in enumerate(processors) if process]

    def row(self, found: tuple[Any, ...]) -> tuple[Any, ...]:
        if self._process:
            found = list(found)  # type: ignore[assignment]
            for index, process in self._process:
                found[index] = process(found[index])  # type: ignore[index]
        return self._row(found)


def sqlite_named(name: str) -> Named:
    """A statement as the generator compiled it for SQLite."""
    from assay.runs.store.sqlite_statements import STATEMENTS

    compiled: tuple[Any, ...] = STATEMENTS[name]  # the generated module's entries vary in type
    sql, names, literals, binds, columns, results = compiled
    processors = [BINDS[kind] if kind else None for kind in binds]
    prepared = Prepared(sql, names, literals, processors, positional=True)
    return Named(prepared, columns, tuple(RESULTS[kind] if kind else None for kind in results))


class Transaction:
    """Named statements in one transaction."""

    def __init__(self, cursor: Any, statement: Callable[[str], Named]):
        self.cursor = cursor
        self._statement = statement
        self.last: tuple[str, Any] = ("BEGIN", None)  # the statement running, for its errors

    def write(self, name: str, values: dict[str, Any] | list[dict[str, Any]]) -> int:
        """How many rows it wrote; a list of values runs the statement once for each."""
        prepared = self._statement(name).prepared
        if isinstance(values, list):
            if values:
                many = [prepared.parameters(value) for value in values]
                self.last = (prepared.sql, many)
                self.cursor.executemany(prepared.sql, many)
        else:
            self.last = (prepared.sql, prepared.parameters(values))
            self.cursor.execute(*self.last)
        written: int = self.cursor.rowcount
        return written

    def rows(self, name: str, values: dict[str, Any]) -> list[Any]:
        named = self._statement(name)
        self.last = (named.prepared.sql, named.prepared.parameters(values))
        self.cursor.execute(*self.last)
        return [named.row(found) for found in self.cursor.fetchall()]


@contextmanager
def committed(connection: Any, transaction: Transaction, *, begin: bool) -> Iterator[None]:
    """The transaction's statements on a cursor of the connection, committed, or rolled back on
    any error; `begin`: the connection is in autocommit mode, so BEGIN is ours to say."""
    transaction.cursor = connection.cursor()
    try:
        if begin:
            transaction.cursor.execute("BEGIN")
        yield
        transaction.last = ("COMMIT", None)
        connection.commit()
    except BaseException:
        with suppress(Exception):  # one that failed on the way may have ended already
            connection.rollback()
        raise
    finally:
        transaction.cursor.close()


def dbapi_error(error: Exception, last: tuple[str, Any], base: type[Exception]) -> Exception:
    """The driver's error as SQLAlchemy raises it (an IntegrityError for an IntegrityError, and so
    on), so that what callers catch is the same on both paths; SQLAlchemy is imported only now."""
    from sqlalchemy.exc import DBAPIError

    sql, parameters = last
    return DBAPIError.instance(sql, parameters, error, base, ismulti=isinstance(parameters, list))


def integrity_error(error: Exception) -> bool:
    """Whether an error of the store's statements is a broken constraint (a key taken already),
    as `dbapi_error` raises it (SQLAlchemy is imported by then)."""
    from sqlalchemy.exc import IntegrityError

    return isinstance(error, IntegrityError)


class Statements:
    """Where named statements run; `transaction` commits, or rolls back on any error."""

    def __init__(self) -> None:
        self._named: dict[str, Named] = {}

    def statement(self, name: str) -> Named:
        named = self._named.get(name)
        if named is None:
            named = self._named[name] = self._make(name)
        return named

    def _make(self, name: str) -> Named:
        return sqlite_named(name)

    def transaction(self) -> Any:  # a context manager giving a Transaction
        raise NotImplementedError

    def read(self, name: str, values: dict[str, Any]) -> list[Any]:
        """One statement's rows, in a transaction of its own."""
        with self.transaction() as transaction:
            found: list[Any] = transaction.rows(name, values)
        return found

    def write(self, name: str, values: dict[str, Any]) -> int:
        """One statement in a transaction of its own; how many rows it wrote."""
        with self.transaction() as transaction:
            written: int = transaction.write(name, values)
        return written

    def close(self) -> None:
        pass


class SqliteFile(Statements):
    """An SQLite file on sqlite3 connections of its own, one per thread (the API serves requests
    on several), in autocommit mode: BEGIN and COMMIT are ours to say."""

    def __init__(self, file: str):
        super().__init__()
        Path(file).expanduser().parent.mkdir(parents=True, exist_ok=True)
        self.file = file
        self._local = threading.local()
        self._opened: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    def _connection(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.file, isolation_level=None, check_same_thread=False)
            with self._lock:
                self._opened.append(connection)
            for pragma in PRAGMAS:
                connection.execute(pragma)
            self._local.connection = connection
        return connection

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        transaction = Transaction(None, self.statement)
        try:
            with committed(self._connection(), transaction, begin=True):
                yield transaction
        except sqlite3.Error as error:
            raise dbapi_error(error, transaction.last, sqlite3.Error) from error

    def read(self, name: str, values: dict[str, Any]) -> list[Any]:
        named = self.statement(name)
        return [named.row(found) for found in self._alone(named.prepared, values).fetchall()]

    def write(self, name: str, values: dict[str, Any]) -> int:
        written: int = self._alone(self.statement(name).prepared, values).rowcount
        return written

    def _alone(self, prepared: Prepared, values: dict[str, Any]) -> sqlite3.Cursor:
        """In autocommit mode one statement is a transaction of its own: no BEGIN, no COMMIT (each
        served action's statements cost as they did on the driver connection they ran on before)."""
        parameters = prepared.parameters(values)
        try:
            return self._connection().execute(prepared.sql, parameters)
        except sqlite3.Error as error:
            raise dbapi_error(error, (prepared.sql, parameters), sqlite3.Error) from error

    def at_head(self) -> bool:
        """Whether the store is at the newest revision, made so if it held no tables at all (from
        the DDL `create_newest` runs); False: it needs the migrations."""
        from assay.runs.store.sqlite_statements import DDL, HEAD

        with self.transaction() as transaction:
            tables = {row[0] for row in transaction.cursor.execute(TABLES).fetchall()}
            if "alembic_version" in tables:
                found = transaction.rows("REVISIONS", {})
                return {row.version_num for row in found} == {HEAD}
            if tables:
                return False
        with self.transaction() as transaction:
            for statement in DDL:
                transaction.cursor.execute(statement)
            transaction.write("STAMP_HEAD", {})
        return True

    def close(self) -> None:
        with self._lock:
            opened, self._opened = self._opened, []
        for connection in opened:
            connection.close()
        self._local = threading.local()


class EngineStatements(Statements):
    """Another database (or an SQLite URL with options of its own) through the engine's driver
    connections, taken from its pool for each transaction and given back."""

    def __init__(self, engine: Engine):
        super().__init__()
        self.engine = engine
        self._sqlite = engine.dialect.name == "sqlite"  # in autocommit mode, as `connect` sets

    def _make(self, name: str) -> Named:
        if self._sqlite:
            return sqlite_named(name)
        from assay.runs.store.statements import PATH

        statement, keys = PATH[name]
        prepared = Prepared.compile(statement, self.engine.dialect, keys)
        columns = (
            tuple(statement.selected_columns.keys())
            if hasattr(statement, "selected_columns")
            else ()
        )
        # psycopg gives JSON decoded and booleans as bool: SQLAlchemy adds nothing on PostgreSQL
        return Named(prepared, columns, (None,) * len(columns))

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        errors = self.engine.dialect.loaded_dbapi.Error
        pooled = self.engine.raw_connection()
        transaction = Transaction(None, self.statement)
        try:
            with committed(pooled.driver_connection, transaction, begin=self._sqlite):
                yield transaction
        except errors as error:
            if not isinstance(error, self.engine.dialect.loaded_dbapi.IntegrityError):
                pooled.invalidate()  # one the database failed on (lost, say) is not given back
            raise dbapi_error(error, transaction.last, errors) from error
        finally:
            pooled.close()
