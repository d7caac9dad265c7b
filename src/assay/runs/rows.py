"""The aggregation input: one light row per task run, fed by results in memory or by the store."""

from __future__ import annotations

from typing import Any, NamedTuple

from assay.score.result import TaskRunResult
from assay.score.task import Outcome


class TaskRow(NamedTuple):
    """What aggregation reads of a task run; `axes` maps an axis to its score."""

    task_id: str
    repeat: int
    split: str
    outcome: Outcome
    reward: int | None
    score: float | None
    axes: dict[str, float]
    summary: dict[str, Any]
    status: str = "completed"


def row_of(result: TaskRunResult) -> TaskRow:
    """The aggregation row of a task run's result."""
    return TaskRow(
        task_id=result.task_id,
        repeat=result.repeat,
        split=result.split,
        outcome=result.outcome,
        reward=result.reward,
        score=result.score,
        axes={name: axis.score for name, axis in result.axes.items()},
        summary=result.summary.model_dump(),
        status=result.status,
    )
