"""A check run: one check's result inside a task run, with evidence."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assay.formats.checks import CheckType


class CheckRun(BaseModel, defer_build=True):
    model_config = ConfigDict(populate_by_name=True)

    name: str
    type: CheckType
    kind: str = Field(alias="assert")
    weight: float
    axis: str | None
    passed: bool
    score: float
    details: str | None
    evidence: dict[str, Any] | None
    judged: bool = Field(False, exclude_if=lambda judged: not judged)  # a model gave this verdict

    @classmethod
    def of(
        cls,
        check: Any,
        *,
        passed: bool,
        score: float,
        details: str | None,
        evidence: dict[str, Any] | None,
        judged: bool = False,
    ) -> CheckRun:
        """The run of `check` (any check model: its name, type, kind, weight and axis carry over)."""
        return cls(
            name=check.name,
            type=check.type,
            kind=check.kind,
            weight=check.weight,
            axis=check.axis,
            passed=passed,
            score=score,
            details=details,
            evidence=evidence,
            judged=judged,
        )

    def as_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)

    def redacted(self) -> CheckRun:
        """The check run without its details and evidence, for scored runs."""
        return self.model_copy(update={"details": None, "evidence": None})
