"""Statements run on the database driver's own connection, compiled once: for the few writes and
reads every served action makes, where SQLAlchemy's per-execution work (the execution context,
events, result wrapping) cost several times the statement itself."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # SQLAlchemy itself is not imported here: `assay.runs.store.lite` needs none
    from sqlalchemy import Dialect, Engine
    from sqlalchemy.sql import ClauseElement
    from sqlalchemy.sql.compiler import Compiled


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
    ):
        self.sql = sql
        # each parameter by name: the value a literal in the statement holds (given values take
        # precedence), and the bind processing its column type asks for
        self._literals = literals
        self._names = list(names)
        self._process = list(zip(names, processors, strict=True))
        self._positional = positional

    @classmethod
    def compile(
        cls, statement: ClauseElement, dialect: Dialect, keys: Sequence[str] | None = None
    ) -> Prepared:
        compiled, names, literals = compile_statement(statement, dialect, keys)
        processors = compiled._bind_processors
        positional = compiled.positiontup is not None
        return cls(
            str(compiled), names, literals, [processors.get(name) for name in names], positional
        )

    def parameters(self, values: dict[str, Any]) -> Sequence[Any] | dict[str, Any]:
        given = {**self._literals, **values} if self._literals else values
        ready = [
            given[name] if process is None else process(given[name])
            for name, process in self._process
        ]
        return ready if self._positional else dict(zip(self._names, ready, strict=True))


def compile_statement(
    statement: ClauseElement, dialect: Dialect, keys: Sequence[str] | None = None
) -> tuple[Compiled, list[str], dict[str, Any]]:
    """The compiled statement, its parameters' names in the order the driver takes them, and the
    values of the literals it holds; `keys`: the columns an INSERT or UPDATE is given."""
    compiled = statement.compile(dialect=dialect, column_keys=keys)
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
        return self._alone(prepared, values, lambda cursor: cursor.rowcount)

    def _alone(self, prepared: Prepared, values: dict[str, Any], take: Callable[[Any], Any]) -> Any:
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
