"""Which rows a task run changed: triggers built into the snapshot log each changed rowid, so that
the final-state hash and the state diff read those rows (once, for both) rather than every table
written to."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any, NamedTuple

from assay.world.guard import OWN_MARK

CHANGES = "sandbox_changes"
ROWID_NAMES = frozenset({"rowid", "_rowid_", "oid"})
# A table smaller than this is cheaper to read whole than its triggers are to parse and to run on
# each write; chosen when every reset parsed them, before copies were used again
# (`assay.world.copies`: now a new copy parses them, a reused one has them parsed).
TRACKED_FROM_ROWS = 128


def trackable(connection: sqlite3.Connection, columns: dict[str, tuple[str, ...]]) -> list[str]:
    """The tables whose changes are worth logging by rowid: every ordinary rowid table of at least
    TRACKED_FROM_ROWS rows, or none when the world has triggers or virtual tables of its own (ours
    need recursive triggers, which would change what the world's do, and a virtual table writes
    where no trigger sees)."""
    kinds = connection.execute("SELECT type, sql FROM sqlite_schema").fetchall()
    if any(kind == "trigger" or "VIRTUAL" in (sql or "")[:20].upper() for kind, sql in kinds):
        return []
    return [
        table
        for table, names in columns.items()
        if _has_rowid(connection, table, names) and _rows(connection, table) >= TRACKED_FROM_ROWS
    ]


def _rows(connection: sqlite3.Connection, table: str) -> int:
    return connection.execute(f"SELECT count(*) FROM {quoted(table)}").fetchone()[0]


def _has_rowid(connection: sqlite3.Connection, table: str, names: Sequence[str]) -> bool:
    if ROWID_NAMES & {name.lower() for name in names}:
        return False  # a column named rowid hides the real one
    try:
        connection.execute(f"SELECT rowid FROM {quoted(table)} LIMIT 0")
    except sqlite3.Error:
        return False  # WITHOUT ROWID
    return True


def install(connection: sqlite3.Connection, tables: Sequence[str]) -> None:
    """The change log and, per table, a trigger per kind of change that logs the rowids touched
    (an update logs the old rowid and the new one, which differ when the rowid itself changes)."""
    if not tables:
        return  # a world of small tables has no log at all
    statements = [f"CREATE TABLE {CHANGES} (tbl TEXT NOT NULL, rid INTEGER NOT NULL)"]
    for index, table in enumerate(tables):
        name, target = f"{CHANGES}_{index}", quoted(table)
        literal = "'" + table.replace("'", "''") + "'"
        log = f"INSERT INTO {CHANGES} VALUES"
        statements += [
            f"CREATE TRIGGER {name}_i AFTER INSERT ON {target} BEGIN "
            f"{log} ({literal}, NEW.rowid); END",
            f"CREATE TRIGGER {name}_u AFTER UPDATE ON {target} BEGIN "
            f"{log} ({literal}, OLD.rowid), ({literal}, NEW.rowid); END",
            f"CREATE TRIGGER {name}_d AFTER DELETE ON {target} BEGIN "
            f"{log} ({literal}, OLD.rowid); END",
        ]
    connection.executescript(";\n".join(statements) + ";")


def track(connection: sqlite3.Connection) -> None:
    """Rows that REPLACE deletes fire delete triggers only when triggers may recurse (assay's own
    pragma, marked as such: `assay.world.guard.Gate`)."""
    connection.execute(OWN_MARK + "PRAGMA recursive_triggers = ON")


def logged(connection: sqlite3.Connection) -> dict[str, list[int]]:
    """The rowids logged per table, each once."""
    found: dict[str, list[int]] = {}
    for table, rowid in connection.execute(f"SELECT DISTINCT tbl, rid FROM {CHANGES}"):
        found.setdefault(table, []).append(rowid)
    return found


class LoggedRows(NamedTuple):
    """The rows of one table that hold its logged rowids: as they started and as they are now,
    read once for both the final-state hash and the state diff."""

    names: list[str]
    before: list[tuple[Any, ...]]
    after: list[tuple[Any, ...]]

    def dicts(self, rows: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
        return [dict(zip(self.names, row, strict=True)) for row in rows]


def logged_rows(
    start: sqlite3.Connection, now: sqlite3.Connection, rowids: dict[str, list[int]]
) -> dict[str, LoggedRows]:
    """Per table of `rowids` (`logged`), its rows holding them in `start` and in `now`."""
    found = {}
    for table, ids in rowids.items():
        _, before = _by_rowid(start, table, ids)
        names, after = _by_rowid(now, table, ids)
        found[table] = LoggedRows(names, before, after)
    return found


def _by_rowid(
    connection: sqlite3.Connection, table: str, rowids: list[int]
) -> tuple[list[str], list[tuple[Any, ...]]]:
    statement = f"SELECT * FROM {quoted(table)} WHERE rowid IN (SELECT value FROM json_each(?))"
    cursor = connection.execute(statement, (json.dumps(rowids),))
    return [column[0] for column in cursor.description], cursor.fetchall()


def unique(connection: sqlite3.Connection, table: str, key: Sequence[str]) -> bool:
    """Whether no two rows of `table` share the values of `key` (NULL counted as a value)."""
    target, columns = quoted(table), ", ".join(quoted(name) for name in key)
    statement = (
        f"SELECT (SELECT count(*) FROM {target}) = "
        f"(SELECT count(*) FROM (SELECT DISTINCT {columns} FROM {target}))"
    )
    return bool(connection.execute(statement).fetchone()[0])


def kept_unique(connection: sqlite3.Connection, table: str, key: Sequence[str]) -> str | None:
    """How the schema keeps `key` unique: "rowid" (it is the rowid: never NULL, never repeated),
    "index" (a unique index on exactly its columns, which lets rows repeat only where one is NULL),
    or None (only reading the rows tells)."""
    info = connection.execute(f"PRAGMA table_info({quoted(table)})").fetchall()
    primary = [(name, kind.upper()) for _, name, kind, _, _, pk in info if pk]
    if len(key) == 1 and primary == [(key[0], "INTEGER")]:
        return "rowid"
    for _, index, is_unique, *_ in connection.execute(f"PRAGMA index_list({quoted(table)})"):
        named = [row[2] for row in connection.execute(f"PRAGMA index_info({quoted(index)})")]
        if is_unique and sorted(named) == sorted(key):
            return "index"
    return None


def any_null(connection: sqlite3.Connection, table: str, key: Sequence[str]) -> bool:
    """Whether some row holds NULL in one of `key`'s columns."""
    where = " OR ".join(f"{quoted(name)} IS NULL" for name in key)
    found = connection.execute(f"SELECT 1 FROM {quoted(table)} WHERE {where} LIMIT 1").fetchone()
    return found is not None


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
