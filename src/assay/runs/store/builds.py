"""Task builds in the records store: one row per build, with its whole record."""

from __future__ import annotations

from typing import Any

from assay.runs.stamps import now
from assay.runs.store.part import StorePart


class BuildRecords(StorePart):
    def save_build(self, record: dict[str, Any]) -> None:
        """Keep one build: `record` holds at least id, world, version, model, prompt_hash,
        published and rejected (lists)."""
        from sqlalchemy import insert

        from assay.runs.store.tables import builds

        with self.engine.begin() as connection:
            connection.execute(
                insert(builds).values(
                    id=record["id"],
                    world=record["world"],
                    version=record["version"],
                    model=record["model"],
                    prompt_hash=record["prompt_hash"],
                    published=len(record["published"]),
                    rejected=len(record["rejected"]),
                    record=record,
                    created_at=record.get("created_at") or now(),
                )
            )

    def builds_of(self, world: str, limit: int = 20) -> list[dict[str, Any]]:
        """A world's builds, newest first."""
        from sqlalchemy import select

        from assay.runs.store.tables import builds

        with self.engine.connect() as connection:
            rows = connection.execute(
                select(builds.c.record)
                .where(builds.c.world == world)
                .order_by(builds.c.created_at.desc(), builds.c.id.desc())
                .limit(limit)
            ).all()
        return [row.record for row in rows]
