"""Which rows a task run changed on PostgreSQL: statement triggers built into the template copy each
statement's old and new rows into a delta table of the same columns, so that the final-state hash
takes out and adds back those rows rather than reading every table written to.

A delta row is `(sign, *row)`: -1 for a row as it was before a change, +1 as it is after. The
digest is a multiset sum, so a row inserted then deleted cancels out and the order of the deltas
does not matter. Transition tables see what cascading foreign keys and a world's own triggers
write too; TRUNCATE, which fires no row triggers, copies the whole table out before it empties it.
"""

from __future__ import annotations

from typing import Any

from psycopg import sql

from assay.world.digest import updated

CHANGED = "sandbox_changed"  # the tables with deltas, each once
SIGN = "sandbox_change_sign"

LOG = f"CREATE TABLE {CHANGED} (tbl text PRIMARY KEY)"
DELTA = "CREATE TABLE {delta} ({sign} smallint NOT NULL, LIKE {table})"
FUNCTION = """
CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        INSERT INTO {delta} SELECT -1, * FROM {table};
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        INSERT INTO {delta} SELECT -1, * FROM sandbox_old;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        INSERT INTO {delta} SELECT 1, * FROM sandbox_new;
    END IF;
    INSERT INTO {log} VALUES ({name}) ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$
"""
TRIGGERS = (
    "CREATE TRIGGER sandbox_changes_i AFTER INSERT ON {table} "
    "REFERENCING NEW TABLE AS sandbox_new FOR EACH STATEMENT EXECUTE FUNCTION {function}()",
    "CREATE TRIGGER sandbox_changes_u AFTER UPDATE ON {table} "
    "REFERENCING OLD TABLE AS sandbox_old NEW TABLE AS sandbox_new "
    "FOR EACH STATEMENT EXECUTE FUNCTION {function}()",
    "CREATE TRIGGER sandbox_changes_d AFTER DELETE ON {table} "
    "REFERENCING OLD TABLE AS sandbox_old FOR EACH STATEMENT EXECUTE FUNCTION {function}()",
    "CREATE TRIGGER sandbox_changes_t BEFORE TRUNCATE ON {table} "
    "FOR EACH STATEMENT EXECUTE FUNCTION {function}()",
)


def install(connection: Any, tables: list[str]) -> dict[str, str]:
    """The change log, and per table a delta table and its triggers; the delta table of each."""
    deltas = {table: f"sandbox_delta_{index}" for index, table in enumerate(sorted(tables))}
    connection.execute(LOG)
    for table, delta in deltas.items():
        names = {
            "table": sql.Identifier(table),
            "delta": sql.Identifier(delta),
            "function": sql.Identifier(f"{delta}_log"),
            "sign": sql.Identifier(SIGN),
            "log": sql.Identifier(CHANGED),
            "name": sql.Literal(table),
        }
        for template in (DELTA, FUNCTION, *TRIGGERS):
            connection.execute(sql.SQL(template).format(**names))
    return deltas


def updated_digests(connection: Any, digests: dict[str, str], deltas: dict[str, str]) -> None:
    """Bring `digests` (the template's) up to date from the deltas of the tables that changed."""
    for (table,) in connection.execute(f"SELECT tbl FROM {CHANGED}").fetchall():
        statement = sql.SQL("SELECT * FROM {}").format(sql.Identifier(deltas[table]))
        rows = connection.execute(statement).fetchall()
        removed = [row[1:] for row in rows if row[0] < 0]
        added = [row[1:] for row in rows if row[0] > 0]
        digests[table] = updated(digests[table], removed, added)
