"""Injected faults: the Nth call of a tool fails, or happens with an unknown outcome."""

from __future__ import annotations

from assay.formats.task import Fault


class FaultPlan:
    def __init__(self, faults: list[Fault]):
        self._planned = {(fault.tool, fault.call): fault.effect for fault in faults}
        self._calls: dict[str, int] = {}
        self.fired = 0

    def next_call(self, tool: str) -> str | None:
        """Count one carried-out call of `tool`; the fault effect for it, if any."""
        if not self._planned:
            return None
        count = self._calls.get(tool, 0) + 1
        self._calls[tool] = count
        effect = self._planned.get((tool, count))
        if effect is not None:
            self.fired += 1
        return effect
