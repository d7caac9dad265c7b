"""`sandbox_events`: one row per thing a healthcare service did (an HL7 send, an X12 pair), shared
by the service kinds that write it."""

from __future__ import annotations

import json
from typing import Any

EVENTS_TABLE = """
CREATE TABLE IF NOT EXISTS sandbox_events (
    id INTEGER PRIMARY KEY,
    service TEXT NOT NULL,
    type TEXT NOT NULL,
    request_id INTEGER,
    turn INTEGER NOT NULL,
    at TEXT NOT NULL,
    data TEXT NOT NULL
);
"""


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def next_row_id(db: Any, table: str) -> int:
    """The next id of a reserved table: the same on both backends, whatever they hand out."""
    return int(db.value(f"SELECT COALESCE(MAX(id), 0) FROM {table}") or 0) + 1


def record_event(world: Any, service: str, kind: str, data: dict[str, Any]) -> None:
    world.db.execute(
        "INSERT INTO sandbox_events (service, type, turn, at, data) VALUES (?, ?, ?, ?, ?)",
        service,
        kind,
        world.turn,
        world.clock.stamp(),
        canonical(data),
    )
