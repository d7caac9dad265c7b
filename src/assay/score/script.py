"""A container-format task run's standing from its `script` check's evidence: pure functions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assay.score.task import Axis
from assay.verify.check_run import CheckRun
from assay.world.rewards import PRIMARY_KEY


@dataclass(frozen=True)
class ScriptStanding:
    """Why the run is not scored (None when it is), whether it has a primary reward to be scored
    by, every metric of the reward file as an axis, and the verifier's failure the agent is blamed
    for (`assay.verify.blame`): then the run is scored, not achieved, with a primary reward of 0."""

    problem: str | None
    has_primary: bool
    axes: dict[str, Axis]
    agent_failure: str | None = None


def script_standing(checks: Sequence[CheckRun]) -> ScriptStanding | None:
    """The standing from the task's script check; None when the task has none."""
    check = next((check for check in checks if check.kind == "script"), None)
    if check is None or check.evidence is None:
        return None
    evidence = check.evidence
    if evidence["status"] != "SCORED":
        failure = f"{evidence['status']}: {evidence['reason']}"
        if evidence.get("failure_side") == "agent":
            # its primary reward is 0, under the primary's usual name, so no axis mean skips it
            zero = {PRIMARY_KEY: Axis(score=0.0, weight=1.0)}
            return ScriptStanding(None, True, zero, agent_failure=failure)
        return ScriptStanding(failure, False, {})
    axes = {name: Axis(score=value, weight=1.0) for name, value in evidence["rewards"].items()}
    return ScriptStanding(None, evidence["primary"] is not None, dict(sorted(axes.items())))
