"""A world's schema, written in portable (SQLite) SQL, as PostgreSQL DDL with SQLite's behaviour kept.

SQLite stores any integer in 64 bits, keeps dates as the text it was given, and numbers a table's
`INTEGER PRIMARY KEY` as max + 1; the DDL below does the same, so both backends hold equal content.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import sqlglot
from sqlglot import exp

from assay.errors import SpecError
from assay.formats.files import read_text
from assay.formats.sqltext import quiet_parser
from assay.formats.world import WorldSpec

DType = exp.DataType.Type

INTEGERS = {DType.TINYINT, DType.SMALLINT, DType.MEDIUMINT, DType.INT, DType.BIGINT}
FLOATS = {DType.FLOAT, DType.DOUBLE}
TEXTUAL = {
    DType.DATE,
    DType.DATETIME,
    DType.TIME,
    DType.TIMESTAMP,
    DType.TIMESTAMPTZ,
    DType.TIMESTAMPLTZ,
}

ROWID_FUNCTION = """
CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.{column} IS NULL THEN
        SELECT coalesce(max({column}), 0) + 1 INTO NEW.{column} FROM {table};
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER sandbox_rowid BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION {function}()
"""


class SchemaError(ValueError):
    """A statement of the schema cannot be carried over to PostgreSQL."""


@dataclass
class Schema:
    """The statements to run, each table's rowid column (`INTEGER PRIMARY KEY`) and each table's
    primary key columns."""

    statements: list[str] = field(default_factory=list)
    rowids: dict[str, str] = field(default_factory=dict)
    keys: dict[str, list[str]] = field(default_factory=dict)


def translate_schema(text: str) -> Schema:
    """PostgreSQL statements for a schema file; SchemaError if it does not parse."""
    try:
        with quiet_parser():
            trees = [tree for tree in sqlglot.parse(text, read="sqlite") if tree is not None]
    except sqlglot.errors.SqlglotError as error:
        raise SchemaError(str(error).splitlines()[0]) from None
    schema = Schema()
    for tree in trees:
        if isinstance(tree, exp.Create) and tree.kind == "TABLE":
            table, column = _table_name(tree), _rowid_column(tree)
            schema.keys[table] = _primary_key(tree)
            if column:
                schema.rowids[table] = column
                _drop_autoincrement(tree, column)
            _portable_types(tree)
        schema.statements.append(tree.sql(dialect="postgres"))
    return schema


def rowid_triggers(rowids: dict[str, str]) -> list[str]:
    """Triggers that number new rows as SQLite numbers its rowid: max + 1 when none is given."""
    return [
        ROWID_FUNCTION.format(
            function=_quoted(f"sandbox_rowid_{table}"),
            table=_quoted(table),
            column=_quoted(column),
        )
        for table, column in sorted(rowids.items())
    ]


def _table_name(tree: exp.Create) -> str:
    table = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
    return table.name.lower()


def _primary_key(tree: exp.Create) -> list[str]:
    """The table's primary key columns, as a column constraint or a table constraint."""
    if not isinstance(tree.this, exp.Schema):
        return []
    columns = {c.name.lower(): c for c in tree.this.expressions if isinstance(c, exp.ColumnDef)}
    keys = [
        name
        for name, column in columns.items()
        if any(isinstance(c.kind, exp.PrimaryKeyColumnConstraint) for c in column.constraints)
    ]
    for key in tree.this.find_all(exp.PrimaryKey):
        keys += [part.name.lower() for part in key.expressions]
    return keys


def _rowid_column(tree: exp.Create) -> str | None:
    """The column that is an alias of SQLite's rowid: a lone integer primary key."""
    if not isinstance(tree.this, exp.Schema):
        return None
    columns = {c.name.lower(): c for c in tree.this.expressions if isinstance(c, exp.ColumnDef)}
    keys = _primary_key(tree)
    if len(keys) != 1 or keys[0] not in columns:
        return None
    kind = columns[keys[0]].kind
    return keys[0] if isinstance(kind, exp.DataType) and kind.this in INTEGERS else None


def _drop_autoincrement(tree: exp.Create, column: str) -> None:
    """The rowid trigger numbers the column; an identity would skip numbers a rollback freed."""
    for definition in tree.find_all(exp.ColumnDef):
        if definition.name.lower() == column:
            kept = [
                c
                for c in definition.constraints
                if not isinstance(
                    c.kind,
                    exp.AutoIncrementColumnConstraint | exp.GeneratedAsIdentityColumnConstraint,
                )
            ]
            definition.set("constraints", kept)


def _portable_types(tree: exp.Create) -> None:
    for column in tree.find_all(exp.ColumnDef):
        kind = column.kind
        if not isinstance(kind, exp.DataType):
            continue
        if kind.this in INTEGERS:
            column.set("kind", exp.DataType.build("bigint"))
        elif kind.this in FLOATS:
            column.set("kind", exp.DataType.build("double precision", dialect="postgres"))
        elif kind.this in TEXTUAL:
            column.set("kind", exp.DataType.build("text"))


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def primary_keys(root: Path, spec: WorldSpec) -> dict[str, list[str]]:
    """Each table's primary key columns, from the world's schema file (empty if it cannot be read:
    building the template reports that)."""
    try:
        return translate_schema(read_text(root / spec.database.schema_file)).keys
    except (SchemaError, SpecError):
        return {}
