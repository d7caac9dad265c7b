"""The aggregation input: one light row per task run, fed by results in memory or by the store."""

from __future__ import annotations

from typing import Any, NamedTuple

from assay.score.result import TaskRunResult
from assay.score.task import Axis, Outcome


class AxisRow(NamedTuple):
    """What aggregation reads of one axis of a task run."""

    score: float
    rules_only: bool = False
    rules: int = 0
    rules_held: int = 0


class TaskRow(NamedTuple):
    """What aggregation reads of a task run."""

    task_id: str
    repeat: int
    split: str
    outcome: Outcome
    reward: int | None
    score: float | None
    axes: dict[str, AxisRow]
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
        axes={name: axis_row(axis) for name, axis in result.axes.items()},
        summary=result.summary.model_dump(),
        status=result.status,
    )


def axis_row(axis: Axis | dict[str, Any]) -> AxisRow:
    """The aggregation row of an axis, from the model or its stored JSON (older ones lack rules)."""
    if isinstance(axis, dict):
        axis = Axis.model_validate(axis)
    return AxisRow(axis.score, axis.rules_only, axis.rules, axis.rules_held)
