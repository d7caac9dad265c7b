"""Writes `sqlite_statements.py`: the statements of `assay run`'s path (`statements`) and the DDL of
a new store (as `migrate.create_newest` runs it), compiled for SQLite, so that a run on an SQLite
file needs no SQLAlchemy. Run `python -m assay.runs.store.generate` (`make statements`) after
changing tables.py or statements.py; a test fails while the module written differs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from sqlalchemy import JSON, Boolean, Dialect, Float, create_mock_engine
from sqlalchemy.dialects import sqlite
from sqlalchemy.schema import CreateIndex
from sqlalchemy.types import TypeEngine

from assay.runs.store.driver import compile_statement
from assay.runs.store.migrate import ALEMBIC_VERSION
from assay.runs.store.statements import PATH
from assay.runs.store.tables import HEAD, metadata

TARGET = Path(__file__).with_name("sqlite_statements.py")
HEADER = '''"""Made by `python -m assay.runs.store.generate` from statements.py and tables.py: do not edit.

STATEMENTS: name → (SQL, its parameters in order, the literals among them, each parameter's bind
processing, the columns of its rows, each column's result processing); DDL: a new store's."""
'''


def kind(column_type: TypeEngine[Any], dialect: Dialect, bind: bool) -> str | None:
    """The processing SQLite's dialect gives the type (`lite.BINDS`, `lite.RESULTS`), by name."""
    implemented = column_type.dialect_impl(dialect)
    processor = (
        implemented.bind_processor(dialect) if bind else implemented.result_processor(dialect, None)
    )
    if processor is None:
        return None
    if isinstance(column_type, JSON):
        if column_type.none_as_null:
            raise ValueError("a JSON column with none_as_null: lite.BINDS has no processing for it")
        return "json"
    for name, known in (("bool", Boolean), ("float", Float)):
        if isinstance(column_type, known):
            return name
    raise ValueError(f"{column_type!r}: lite.BINDS and lite.RESULTS know no processing for it")


def compiled_statements() -> dict[str, tuple[Any, ...]]:
    dialect = sqlite.dialect()
    compiled = {}
    for name, (statement, keys) in PATH.items():
        done, names, literals = compile_statement(statement, dialect, keys)
        if done.positiontup is None or getattr(done, "_post_compile_expanded_state", None):
            raise ValueError(f"{name}: SQLite's statements take their parameters by position")
        binds = tuple(kind(done.binds[bound].type, dialect, bind=True) for bound in names)
        selected = getattr(statement, "selected_columns", None)
        columns = tuple(selected.keys()) if selected is not None else ()
        results = tuple(kind(column.type, dialect, bind=False) for column in selected or ())
        compiled[name] = (str(done), tuple(names), literals, binds, columns, results)
    return compiled


def new_store_ddl() -> tuple[str, ...]:
    """The DDL `create_newest` runs, in its order, as SQLAlchemy would send it; a table's indexes
    (a set, in no fixed order) by name."""
    sent: list[Any] = []
    engine = create_mock_engine("sqlite://", lambda ddl, *_, **__: sent.append(ddl))
    metadata.create_all(engine, checkfirst=False)
    ALEMBIC_VERSION.create(engine)
    ordered: list[Any] = []
    for ddl in sent:
        at = len(ordered)
        while isinstance(ddl, CreateIndex) and at and isinstance(ordered[at - 1], CreateIndex):
            if ordered[at - 1].element.name < ddl.element.name:
                break
            at -= 1
        ordered.insert(at, ddl)
    return tuple(str(ddl.compile(dialect=engine.dialect)) for ddl in ordered)


def source() -> str:
    """The module's text."""
    lines = [HEADER, f"HEAD = {literal(HEAD, 0)}\n", f"DDL = {literal(new_store_ddl(), 0)}\n"]
    lines.append(f"STATEMENTS = {literal(compiled_statements(), 0)}\n")
    return "\n".join(lines)


def literal(value: Any, depth: int) -> str:
    """Python text for the value, laid out one item a line as the formatter would."""
    inner = "    " * (depth + 1)
    if isinstance(value, tuple | list):
        if not value:
            return "()"
        if len(value) == 1 and not isinstance(value[0], tuple | list | dict):
            return f"({literal(value[0], depth + 1)},)"  # the formatter keeps one item inline
        items = "".join(f"{inner}{literal(item, depth + 1)},\n" for item in value)
        return "(\n" + items + "    " * depth + ")"
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = "".join(
            f"{inner}{literal(key, depth + 1)}: {literal(item, depth + 1)},\n"
            for key, item in value.items()
        )
        return "{\n" + items + "    " * depth + "}"
    if isinstance(value, str):
        return quoted(value)
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    raise ValueError(f"{value!r} has no literal here")


def quoted(text: str) -> str:
    """A string literal, in double quotes unless the text holds them and no single ones."""
    body = text.encode("unicode_escape").decode("ascii")
    if '"' in text and "'" not in text:
        return "'" + body + "'"
    return '"' + body.replace('"', '\\"') + '"'


def main() -> int:
    written = source()
    if TARGET.exists() and TARGET.read_text(encoding="utf-8") == written:
        return 0
    TARGET.write_text(written, encoding="utf-8")
    print(f"wrote {TARGET}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
