"""Reads of a world's starting state made once, not once a task run: the starting state does not
change while its world is loaded, so the diff's rows before and the count of requests sent again
are the same answer for every task run that left those tables alone."""

from __future__ import annotations

from typing import Any

from assay.world.database import Database

CACHED_ROWS = 4096  # a larger answer is read again each time rather than held


class StartingState:
    """`initial` (the read-only starting state), each answer of `value` and `rows` kept by its SQL
    text; an answer that raises is not kept. Threads asking at once may each read, and all keep
    the first answer (`dict.setdefault` is atomic): no lock, so a forked worker inherits none."""

    def __init__(self, initial: Database):
        self.initial = initial
        self._values: dict[str, Any] = {}
        self._rows: dict[str, list[dict[str, Any]]] = {}

    def value(self, sql: str) -> Any:
        if sql not in self._values:
            self._values.setdefault(sql, self.initial.value(sql))
        return self._values[sql]

    def rows(self, sql: str) -> list[dict[str, Any]]:
        """The rows, shared between callers: read them, never change them."""
        found = self._rows.get(sql)
        if found is None:
            found = self.initial.rows(sql)
            if len(found) <= CACHED_ROWS:
                found = self._rows.setdefault(sql, found)
        return found
