"""Read-only views of a world's state, as checks and Python verifiers see them."""

from __future__ import annotations

import json
from typing import Any

from assay.world.database import Params, Queries, WorldCopy


class ReadView(Queries):
    """`value`, `rows`, `row` and `requests` on a database that can only be read, with a time limit."""

    def __init__(self, db: WorldCopy, timeout_s: float):
        self.db = db
        self.timeout_s = timeout_s

    def fetch(self, sql: str, params: Params) -> tuple[list[str], list[tuple[Any, ...]]]:
        return self.db.run_limited(self.timeout_s, sql, params)

    def head(self, sql: str, params: Params, rows: int) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Column names and at most `rows` rows: the rest is never fetched."""
        return self.db.run_limited(self.timeout_s, sql, params, rows)

    def requests(self, service: str | None = None) -> list[dict[str, Any]]:
        """Every request the world's services received, oldest first, payloads decoded."""
        sql = "SELECT * FROM sandbox_requests"
        found = (
            self.rows(sql + " WHERE service = ? ORDER BY id", service)
            if service
            else self.rows(sql + " ORDER BY id")
        )
        for request in found:
            request["payload"] = json.loads(request["payload"])
            request["response"] = json.loads(request["response"]) if request["response"] else None
        return found
