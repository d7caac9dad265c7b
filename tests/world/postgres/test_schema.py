"""Portable DDL carried over to PostgreSQL with SQLite's storage behaviour."""

from __future__ import annotations

import pytest

from assay.world.postgres.schema import SchemaError, rowid_triggers, translate_schema


def test_types_store_what_sqlite_stores() -> None:
    schema = translate_schema(
        "CREATE TABLE t (a INTEGER, b INT, c REAL, d FLOAT, e DATETIME, f DATE, g TEXT, h JSON)"
    )
    assert schema.statements == [
        "CREATE TABLE t (a BIGINT, b BIGINT, c DOUBLE PRECISION, d DOUBLE PRECISION, e TEXT, "
        "f TEXT, g TEXT, h JSON)"
    ]


@pytest.mark.parametrize(
    ("ddl", "rowids"),
    [
        ("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT)", {"t": "id"}),
        ("CREATE TABLE t (n INTEGER, a TEXT, PRIMARY KEY (n))", {"t": "n"}),
        ("CREATE TABLE T (Id INTEGER PRIMARY KEY AUTOINCREMENT)", {"t": "id"}),
        ("CREATE TABLE t (id TEXT PRIMARY KEY)", {}),
        ("CREATE TABLE t (a INTEGER, b INTEGER, PRIMARY KEY (a, b))", {}),
        ("CREATE TABLE t (a INTEGER)", {}),
    ],
)
def test_rowid_columns_are_found(ddl: str, rowids: dict[str, str]) -> None:
    assert translate_schema(ddl).rowids == rowids


def test_autoincrement_leaves_numbering_to_the_rowid_trigger() -> None:
    schema = translate_schema("CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, a TEXT)")
    assert schema.statements == ["CREATE TABLE t (id BIGINT PRIMARY KEY, a TEXT)"]


def test_rowid_triggers_number_from_max_plus_one() -> None:
    [trigger] = rowid_triggers({"refunds": "id"})
    assert 'coalesce(max("id"), 0) + 1' in trigger
    assert 'BEFORE INSERT ON "refunds"' in trigger


def test_other_statements_pass_through() -> None:
    schema = translate_schema("CREATE TABLE t (a TEXT); CREATE INDEX t_a ON t (a)")
    assert len(schema.statements) == 2 and schema.statements[1].startswith("CREATE INDEX")


def test_a_schema_that_does_not_parse_is_a_schema_error() -> None:
    with pytest.raises(SchemaError):
        translate_schema("CREATE TABLE (")
