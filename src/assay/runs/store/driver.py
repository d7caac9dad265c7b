"""Statements compiled once and run on the database driver's own connection, with the parameters
SQLAlchemy would bind: for the store's named statements (`assay.runs.store.lite`), where
SQLAlchemy's per-execution work (the execution context, events, result wrapping) cost several
times the statement itself."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # SQLAlchemy itself is not imported here: `assay.runs.store.lite` needs none
    from sqlalchemy import Dialect
    from sqlalchemy.sql import ClauseElement
    from sqlalchemy.sql.compiler import SQLCompiler


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
