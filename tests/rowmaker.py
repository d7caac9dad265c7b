"""Hand-made aggregation rows for table tests."""

from __future__ import annotations

from typing import Any

from assay.runs.rows import AxisRow, TaskRow
from assay.score.task import REWARDS

QUIET = {
    "false_completion": False,
    "duplicate_effects": 0,
    "faults": 0,
    "recovered": False,
    "unnecessary_interruptions": 0,
    "rejected_attempts": 0,
    "turns": 1,
    "termination": "finished",
}


def row(
    task: str,
    outcome: str = "verified",
    score: float | None = None,
    *,
    repeat: int = 0,
    split: str = "train",
    axes: dict[str, float | AxisRow] | None = None,
    status: str | None = None,
    **summary: Any,
) -> TaskRow:
    """A task run row; the score defaults to 1 for verified, 0 otherwise, None when not scored; an
    axis given as a number is a scored axis."""
    if score is None and outcome != "not_scored":
        score = 1.0 if outcome == "verified" else 0.0
    return TaskRow(
        task_id=task,
        repeat=repeat,
        split=split,
        outcome=outcome,  # type: ignore[arg-type]
        reward=REWARDS[outcome],  # type: ignore[index]
        score=score,
        axes={
            name: AxisRow(a) if isinstance(a, float | int) else a
            for name, a in (axes or {}).items()
        },
        summary={**QUIET, **summary},
        status=status or ("failed" if outcome == "not_scored" else "completed"),
    )


def repeats(task: str, outcomes: str, **fields: Any) -> list[TaskRow]:
    """One row per letter: v verified, n not achieved, r rule violated, x not scored."""
    names = {"v": "verified", "n": "not_achieved", "r": "rule_violated", "x": "not_scored"}
    return [row(task, names[letter], repeat=i, **fields) for i, letter in enumerate(outcomes)]
