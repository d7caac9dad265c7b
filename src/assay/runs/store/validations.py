"""Validation results in the records store: one row per validation, the newest per task file read back."""

from __future__ import annotations

from typing import Any

from assay.runs.stamps import now
from assay.runs.store.part import StorePart


class ValidationRecords(StorePart):
    """The two methods `assay validate` and withdrawn tasks need of the store."""

    def save_validation(
        self,
        world: str,
        version: str,
        task_id: str,
        task_hash: str,
        passed: bool,
        record: dict[str, Any],
    ) -> None:
        """Keep one task's validation record; earlier ones stay as history."""
        from sqlalchemy import insert

        from assay.runs.store.tables import validations

        with self.engine.begin() as connection:
            connection.execute(
                insert(validations).values(
                    world=world,
                    version=version,
                    task_id=task_id,
                    task_hash=task_hash,
                    passed=passed,
                    record=record,
                    created_at=now(),
                )
            )

    def latest_validations(self, world: str, version: str) -> list[dict[str, Any]]:
        """The newest validation of each (task_id, task_hash) of a world version, as
        `{task_id, task_hash, passed, record, validated_at}`."""
        rows = self.statements.read("VALIDATIONS", {"b_world": world, "b_version": version})
        latest = {
            (row.task_id, row.task_hash): {
                "task_id": row.task_id,
                "task_hash": row.task_hash,
                "passed": row.passed,
                "record": row.record,
                "validated_at": row.created_at,
            }
            for row in rows
        }
        return [latest[key] for key in sorted(latest)]
