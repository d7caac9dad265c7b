"""`sandbox_x12_records`: both sides of each clearinghouse exchange, one row each (`pair_id`
links an answer to its request), with an `x12_request` / `x12_response` event per row."""

from __future__ import annotations

from typing import Any

from assay.world.services.base import canonical
from assay.world.services.healthcare.events import next_row_id, record_event
from assay.world.services.healthcare.x12.paths import BadX12, parse, read

TABLE = """
CREATE TABLE IF NOT EXISTS sandbox_x12_records (
    id INTEGER PRIMARY KEY,
    service TEXT NOT NULL,
    transaction_set TEXT NOT NULL,
    direction TEXT NOT NULL,
    control_number TEXT,
    pair_id INTEGER,
    turn INTEGER NOT NULL,
    raw TEXT NOT NULL,
    parsed TEXT NOT NULL
);
"""
INSERT = (
    "INSERT INTO sandbox_x12_records (id, service, transaction_set, direction, control_number, "
    "pair_id, turn, raw, parsed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def keep(
    world: Any,
    service: str,
    transaction_set: str,
    raw: str,
    parsed: dict[str, Any],
    pair: int | None,
) -> int:
    """One row (a request when `pair` is None, else an answer to row `pair`); its id."""
    row_id = next_row_id(world.db, "sandbox_x12_records")
    try:
        control = read(parse(raw), "ISA.13")
    except BadX12:
        control = None
    direction = "request" if pair is None else "response"
    pair_id = row_id if pair is None else pair
    world.db.execute(
        INSERT,
        row_id,
        service,
        transaction_set,
        direction,
        control,
        pair_id,
        world.turn,
        raw,
        canonical(parsed),
    )
    data = {
        "record_id": row_id,
        "transaction_set": transaction_set,
        "control_number": control,
        "pair_id": pair_id,
    }
    record_event(world, service, f"x12_{direction}", data)
    return row_id
