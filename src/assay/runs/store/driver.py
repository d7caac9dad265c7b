"""Statements run on the database driver's own connection, compiled once: for the few writes and
reads every served action makes, where SQLAlchemy's per-execution work (the execution context,
events, result wrapping) cost several times the statement itself."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from operator import itemgetter
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:  # SQLAlchemy itself is not imported here: `assay.runs.store.lite` needs none
    from sqlalchemy import Dialect, Engine
    from sqlalchemy.sql import ClauseElement
    from sqlalchemy.sql.compiler import SQLCompiler

Found = TypeVar("Found")


class Prepared:
    """One statement compiled for a dialect: its text, and how its parameters are made ready (the
    column types' bind processing, e.g. JSON serialised, and the literals the statement holds).
    Made by `compile`, or from the parts a compilation gave (`assay.runs.store.lite`)."""

    def __init__(
        self,
        sql: str,
        names: Sequence[str],
        literals: dict[str, Any],
        processors: Sequence[Callable[[Any], Any] | None],
        positional: bool,
        dumped: Sequence[bool] = (),
    ):
        """dumped: for each parameter, whether its processor is SQLAlchemy's own JSON processing
        with `json.dumps` and nothing after it (`json_dumped`), so that an object or a list can be
        given to `json.dumps` straight, the same text without a call through the processor."""
        self.sql = sql
        # each parameter by name: the value a literal in the statement holds (given values take
        # precedence), and the bind processing its column type asks for, looked up once here
        self._literals = literals
        self._names = list(names)
        self._take = _getter(self._names)
        dumped = list(dumped) or [False] * len(self._names)
        self._process = [
            (index, process, plain)
            for index, (process, plain) in enumerate(zip(processors, dumped, strict=True))
            if process is not None
        ]
        self._positional = positional

    @classmethod
    def compile(
        cls, statement: ClauseElement, dialect: Dialect, keys: Sequence[str] | None = None
    ) -> Prepared:
        compiled, names, literals = compile_statement(statement, dialect, keys)
        processors = [_one_processor(compiled._bind_processors.get(name)) for name in names]
        dumped = [json_dumped(compiled.binds[name].type, dialect) for name in names]
        positional = compiled.positiontup is not None
        return cls(str(compiled), names, literals, processors, positional, dumped)

    def parameters(self, values: dict[str, Any]) -> Sequence[Any] | dict[str, Any]:
        ready = self._take({**self._literals, **values} if self._literals else values)
        for index, process, plain in self._process:
            value = ready[index]
            plain_value = plain and (value.__class__ is dict or value.__class__ is list)
            ready[index] = json.dumps(value) if plain_value else process(value)
        return ready if self._positional else dict(zip(self._names, ready, strict=True))


def _one_processor(found: object) -> Callable[[Any], Any] | None:
    """A parameter's bind processing: one function, or none. A tuple-valued parameter's (one
    for each item) is refused, since `Prepared.parameters` processes one value per parameter."""
    if found is None or callable(found):
        return found
    raise ValueError("a tuple-valued parameter: prepare its statement with one value per parameter")


def _getter(names: list[str]) -> Callable[[dict[str, Any]], list[Any]]:
    """The values of `names` from a dict, in order, as a new list (itemgetter does the lookups)."""
    if not names:
        return lambda values: []
    if len(names) == 1:
        name = names[0]
        return lambda values: [values[name]]
    take = itemgetter(*names)
    return lambda values: list(take(values))


def json_dumped(type_: Any, dialect: Dialect) -> bool:
    """Whether the bind processing of a column type is SQLAlchemy's generic JSON processing with
    `json.dumps` and nothing done to the text after: for an object or a list exactly
    `json.dumps(value)` (its special cases are SQL NULL and None, neither of them)."""
    from sqlalchemy.sql.sqltypes import JSON

    impl = type_.dialect_impl(dialect)
    return (
        isinstance(impl, JSON)
        and type(impl).bind_processor is JSON.bind_processor
        and type(impl)._make_bind_processor is JSON._make_bind_processor
        and dialect._json_serializer in (None, json.dumps)
        and not (dialect._json_serializer is None and dialect.supports_native_json_serialization)
        and impl._str_impl.bind_processor(dialect) is None
    )


def compile_statement(
    statement: ClauseElement, dialect: Dialect, keys: Sequence[str] | None = None
) -> tuple[SQLCompiler, list[str], dict[str, Any]]:
    """The compiled statement, its parameters' names in the order the driver takes them, and the
    values of the literals it holds; `keys`: the columns an INSERT or UPDATE is given."""
    # a statement (not DDL) compiles to an SQLCompiler, which holds its parameters
    compiled = cast("SQLCompiler", statement.compile(dialect=dialect, column_keys=keys))
    names = list(compiled.positiontup or compiled.bind_names.values())
    binds = {name: compiled.binds[name] for name in names}
    literals = {name: bind.effective_value for name, bind in binds.items() if not bind.required}
    return compiled, names, literals


class Driver:
    """One driver connection from the engine's pool, kept open; each `transaction` commits or rolls
    back before it returns, so no transaction is left open between requests."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.integrity_error: type[Exception] = engine.dialect.loaded_dbapi.IntegrityError
        self._errors: type[Exception] = engine.dialect.loaded_dbapi.Error
        self._sqlite = engine.dialect.name == "sqlite"  # in autocommit mode: BEGIN is ours to say
        self._pooled: Any = None  # the pool's wrapper, which gives the connection back on close
        self._connection: Any = None

    def prepare(self, statement: ClauseElement, keys: Sequence[str] | None = None) -> Prepared:
        return Prepared.compile(statement, self.engine.dialect, keys)

    def one(self, prepared: Prepared, values: dict[str, Any]) -> tuple[Any, ...] | None:
        """One statement as a transaction of its own; its first row, if it returns rows."""
        return self._alone(
            prepared, values, lambda cursor: cursor.fetchone() if cursor.description else None
        )

    def write(self, prepared: Prepared, values: dict[str, Any]) -> int:
        """One statement as a transaction of its own; how many rows it wrote."""
        written: int = self._alone(prepared, values, lambda cursor: cursor.rowcount)
        return written

    def _alone(
        self, prepared: Prepared, values: dict[str, Any], take: Callable[[Any], Found]
    ) -> Found:
        connection = self._connect()
        try:
            cursor = connection.execute(prepared.sql, prepared.parameters(values))
            found = take(cursor)
            connection.commit()  # SQLite in autocommit mode has committed already: a no-op
        except BaseException as error:
            self._failed(error)
            raise
        return found

    @contextmanager
    def transaction(self) -> Iterator[Callable[..., Any]]:
        """Statements in one transaction: `execute(prepared, values)` gives the cursor, and
        `execute(prepared, [values, ...])` runs the statement once for each."""
        connection = self._connect()
        cursor = connection.cursor()

        def execute(prepared: Prepared, values: dict[str, Any] | list[dict[str, Any]]) -> Any:
            if isinstance(values, list):
                return cursor.executemany(prepared.sql, [prepared.parameters(v) for v in values])
            return cursor.execute(prepared.sql, prepared.parameters(values))

        try:
            if self._sqlite:
                cursor.execute("BEGIN")
            yield execute
            cursor.close()
            connection.commit()
        except BaseException as error:
            self._failed(error)
            raise

    def _failed(self, error: BaseException) -> None:
        """Roll back; a connection the database failed on otherwise (lost, say) is given up, and
        the next statement opens another."""
        try:
            self._connection.rollback()
        except Exception:
            pass
        else:
            if isinstance(error, self.integrity_error) or not isinstance(error, self._errors):
                return
        self._pooled.invalidate()
        self._pooled = self._connection = None

    def _connect(self) -> Any:
        if self._connection is None:
            self._pooled = self.engine.raw_connection()
            self._connection = self._pooled.driver_connection
        return self._connection

    def close(self) -> None:
        if self._pooled is not None:
            self._pooled.close()
            self._pooled = self._connection = None
