"""A container-format task run's standing from its `script` check's evidence: pure functions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay.score.task import Axis
from assay.verify.model import CheckRun


@dataclass(frozen=True)
class ScriptStanding:
    """Why the run is not scored (None when SCORED), whether a primary reward exists, and every
    metric of the reward file as an axis."""

    problem: str | None
    has_primary: bool
    axes: dict[str, Axis]


def script_standing(checks: Sequence[CheckRun]) -> ScriptStanding | None:
    """The standing from the task's script check; None when the task has none."""
    check = next((check for check in checks if check.kind == "script"), None)
    if check is None or check.evidence is None:
        return None
    evidence = check.evidence
    if evidence["status"] != "SCORED":
        return ScriptStanding(f"{evidence['status']}: {evidence['reason']}", False, {})
    axes = {name: Axis(score=value, weight=1.0) for name, value in evidence["rewards"].items()}
    return ScriptStanding(None, evidence["primary"] is not None, dict(sorted(axes.items())))
