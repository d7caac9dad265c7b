"""Writes `sqlite_statements.json` (`sqlite_statements` reads it): the statements of `assay run`'s path (`statements`) and the DDL of
a new store (as `migrate.create_newest` runs it), compiled for SQLite, so that a run on an SQLite
file needs no SQLAlchemy. Run `python -m assay.runs.store.generate` (`make statements`) after
changing tables.py or statements.py; a test fails while the file written differs."""

from __future__ import annotations

import json
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

TARGET = Path(__file__).with_name("sqlite_statements.json")
NOTE = "made by `python -m assay.runs.store.generate` from statements.py and tables.py: do not edit"


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
    """The file's text: JSON, one DDL statement and one named statement a line."""
    ddl = ",\n".join(f"    {json.dumps(statement)}" for statement in new_store_ddl())
    named = ",\n".join(
        f"    {json.dumps(name)}: {json.dumps(entry)}"
        for name, entry in compiled_statements().items()
    )
    return (
        f'{{\n  "NOTE": {json.dumps(NOTE)},\n  "HEAD": {json.dumps(HEAD)},\n'
        f'  "DDL": [\n{ddl}\n  ],\n  "STATEMENTS": {{\n{named}\n  }}\n}}\n'
    )


def main() -> int:
    written = source()
    if TARGET.exists() and TARGET.read_text(encoding="utf-8") == written:
        return 0
    TARGET.write_text(written, encoding="utf-8")
    print(f"wrote {TARGET}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
