"""docs/healthcare.md's table of reserved tables names every reserved table each service (and the
runtime) creates, with exactly its columns in order, so a `sql` check written from it runs."""

from __future__ import annotations

import re
import sqlite3

from docskit import ROOT

from assay.world.reserved import SQLITE_DDL
from assay.world.services import SERVICE_KINDS, service_class
from assay.world.services.healthcare import events

ROW = re.compile(r"^\| `(sandbox_\w+)` \| ([^|]+) \|", re.MULTILINE)


def documented() -> dict[str, list[str]]:
    page = (ROOT / "docs" / "healthcare.md").read_text(encoding="utf-8")
    section = page.split("## Reserved tables", 1)[1].split("\n## ", 1)[0]
    return {name: re.findall(r"`(\w+)`", columns) for name, columns in ROW.findall(section)}


def created() -> dict[str, list[str]]:
    db = sqlite3.connect(":memory:")
    db.executescript(SQLITE_DDL + events.EVENTS_TABLE)
    for kind in SERVICE_KINDS.builtins:
        db.executescript(service_class(kind, ROOT).tables.get("sqlite", ""))
    names = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {
        name: [column[1] for column in db.execute(f"PRAGMA table_info({name})")] for name in names
    }


def test_every_reserved_table_is_documented_with_its_columns():
    assert documented() == created()
