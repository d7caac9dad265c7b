"""The FHIR server's reserved tables: the current version of each resource, and every version."""

from __future__ import annotations

import json
from typing import Any

TABLES = """
CREATE TABLE IF NOT EXISTS sandbox_fhir_resources (
    resource_type TEXT NOT NULL,
    id TEXT NOT NULL,
    version_id INTEGER NOT NULL,
    last_updated TEXT NOT NULL,
    deleted INTEGER NOT NULL DEFAULT 0,
    created_turn INTEGER NOT NULL,
    resource TEXT NOT NULL,
    PRIMARY KEY (resource_type, id)
);
CREATE TABLE IF NOT EXISTS sandbox_fhir_history (
    resource_type TEXT NOT NULL,
    id TEXT NOT NULL,
    version_id INTEGER NOT NULL,
    last_updated TEXT NOT NULL,
    method TEXT NOT NULL,
    turn INTEGER NOT NULL,
    resource TEXT NOT NULL
);
"""
INSERT_CURRENT = (
    "INSERT INTO sandbox_fhir_resources (resource_type, id, version_id, last_updated, deleted, "
    "created_turn, resource) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
INSERT_HISTORY = (
    "INSERT INTO sandbox_fhir_history (resource_type, id, version_id, last_updated, method, turn, "
    "resource) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
CURRENT = (
    "SELECT resource_type, id, version_id, last_updated, deleted, created_turn, resource "
    "FROM sandbox_fhir_resources"
)


def canonical(resource: dict[str, Any]) -> str:
    """One text per resource content, so the same resource hashes the same on both backends."""
    return json.dumps(resource, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
