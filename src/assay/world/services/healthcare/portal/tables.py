"""The portal's reserved tables, and the seed rows it starts from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from assay.errors import SpecError
from assay.formats.files import shown
from assay.world.services.healthcare.events import EVENTS_TABLE

TABLES = """
CREATE TABLE IF NOT EXISTS sandbox_portal_state (
    service TEXT NOT NULL,
    resource TEXT NOT NULL,
    key TEXT NOT NULL,
    data TEXT NOT NULL,
    version INTEGER NOT NULL,
    updated_turn INTEGER NOT NULL,
    PRIMARY KEY (service, resource, key)
);
"""
TABLES += EVENTS_TABLE
INSERT_ROW = (
    "INSERT INTO sandbox_portal_state (service, resource, key, data, version, updated_turn) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def seed_rows(root: Path, name: str, options: dict[str, Any], file: str) -> list[tuple[Any, ...]]:
    """One row per line of each seed file (`<resource>.jsonl`), keyed by its resource's `key`."""
    rows = []
    resources = options.get("resources", {})
    for index, pattern in enumerate(options.get("seed", [])):
        path = root / pattern
        resource = path.stem
        key = resources.get(resource, {}).get("key")
        if key is None:
            problem = f"declare [services.{name}.resources.{resource}] key for {pattern}"
            raise SpecError(file, f"services.{name}.seed[{index}]", problem)
        if not path.is_file():
            raise SpecError(file, f"services.{name}.seed[{index}]", f"{pattern} not found")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except ValueError as error:
                raise SpecError(shown(path), f"line {number}", f"not JSON: {error}") from None
            if not isinstance(data, dict) or data.get(key) in (None, ""):
                raise SpecError(shown(path), f"line {number}", f"a row needs its key {key!r}")
            rows.append((name, resource, str(data[key]), canonical(data), 1, 0))
    return rows
