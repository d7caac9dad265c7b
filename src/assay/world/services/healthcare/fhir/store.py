"""Reads and writes of the FHIR server's tables, inside the task run's database copy."""

from __future__ import annotations

import json
from typing import Any

from assay.world.services.healthcare.fhir.tables import (
    CURRENT,
    INSERT_CURRENT,
    INSERT_HISTORY,
    canonical,
)


class FhirStore:
    def __init__(self, world: Any):
        self.world = world

    def current(self, resource_type: str, ident: str) -> dict[str, Any] | None:
        return self.world.db.row(
            f"{CURRENT} WHERE resource_type = ? AND id = ?", resource_type, ident
        )

    def version(self, resource_type: str, ident: str, version: int) -> dict[str, Any] | None:
        return self.world.db.row(
            "SELECT resource, method FROM sandbox_fhir_history "
            "WHERE resource_type = ? AND id = ? AND version_id = ?",
            resource_type,
            ident,
            version,
        )

    def of_type(self, resource_type: str) -> list[dict[str, Any]]:
        rows = self.world.db.rows(
            f"{CURRENT} WHERE resource_type = ? AND deleted = 0 ORDER BY last_updated, id",
            resource_type,
        )
        return [json.loads(row["resource"]) for row in rows]

    def write(
        self, resource: dict[str, Any], version: int, method: str, created_turn: int | None
    ) -> None:
        """Put `resource` (its meta already set) as the current version, and in the history."""
        world = self.world
        kind, ident = resource["resourceType"], resource["id"]
        stamp = resource["meta"]["lastUpdated"]
        text = canonical(resource)
        deleted = 1 if method == "DELETE" else 0
        world.db.execute(
            "DELETE FROM sandbox_fhir_resources WHERE resource_type = ? AND id = ?", kind, ident
        )
        first = world.turn if created_turn is None else created_turn
        world.db.execute(INSERT_CURRENT, kind, ident, version, stamp, deleted, first, text)
        world.db.execute(INSERT_HISTORY, kind, ident, version, stamp, method, world.turn, text)
