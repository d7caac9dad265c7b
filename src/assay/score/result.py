"""A task run's result: one model, serialised once, shared by the CLI, the API and the store."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from assay.score.summary import Summary
from assay.score.task import Axis, Outcome, Verdict
from assay.taskrun.rollout import RunError
from assay.verify.check_run import CheckRun
from assay.world.diff import StateChanges

Status = Literal["active", "completed", "cancelled", "failed", "timed_out"]


class TaskRunResult(BaseModel, defer_build=True):
    id: str
    task_id: str
    title: str
    split: str
    repeat: int
    agent: str
    status: Status
    outcome: Outcome
    reward: int | None
    score: float | None
    verdict: Verdict | None
    passed: bool
    fraction: float
    axes: dict[str, Axis]
    checks: list[CheckRun]
    summary: Summary
    output: str
    error: RunError | None
    final_state_hash: str
    started_at: str
    duration_s: float
    # A Python class agent's: `sandbox`, or `process` where the machine could not give one.
    agent_isolation: Literal["sandbox", "process"] | None = None
    # what the agent changed against the starting state, and the services' requests (capped)
    changes: StateChanges | None = None
    trajectory: dict[str, Any] | None = None  # last: the store splices it in there

    def as_json(self, *, trajectory: bool = True) -> dict[str, Any]:
        exclude = None if trajectory else {"trajectory"}
        return self.model_dump(mode="json", by_alias=True, exclude=exclude)

    def redacted(self) -> TaskRunResult:
        """Scored mode: outcome, reward, score, verdict and axes stay; details, evidence and the
        state's changes (which would show the world's hidden rows) go."""
        checks = [check.redacted() for check in self.checks]
        return self.model_copy(update={"checks": checks, "changes": None})
