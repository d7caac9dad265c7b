"""Two benchmark runs side by side: per-task changes and a paired bootstrap over the shared tasks."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel

from assay.runs.rows import TaskRow

RESAMPLES = 10_000
SEED = 20260302
ALPHA = 0.05  # a difference is significant when its p-value is below this
METHOD = "paired bootstrap over tasks of the mean score difference (B − A)"

Change = Literal["regressed", "improved", "unchanged", "only_a", "only_b"]
ORDER: dict[str, int] = {"regressed": 0, "improved": 1, "unchanged": 2, "only_a": 3, "only_b": 4}


class TaskFigures(BaseModel, defer_build=True):
    """One task's scored task runs in one run: how many, how many verified, the mean score."""

    scored: int
    verified: int
    pass_rate: float
    mean_score: float


class TaskChange(BaseModel, defer_build=True):
    """One task in both runs; a change is B − A, null where the task is scored in only one."""

    task_id: str
    a: TaskFigures | None
    b: TaskFigures | None
    pass_rate_change: float | None
    score_change: float | None
    change: Change


class PairedTest(BaseModel, defer_build=True):
    """The paired bootstrap: tasks drawn with replacement, the mean of their score differences."""

    method: str = METHOD
    tasks: int
    mean_difference: float
    ci95: tuple[float, float]
    p_value: float
    resamples: int = RESAMPLES
    seed: int = SEED


class Comparison(BaseModel, defer_build=True):
    """Per-task changes, regressions first, and the paired test (null under two shared tasks)."""

    tasks: list[TaskChange]
    test: PairedTest | None
    alpha: float = ALPHA
    regression: bool
    improvement: bool


def compare(a: Sequence[TaskRow], b: Sequence[TaskRow]) -> Comparison:
    """Compare run B against run A, task by task; not-scored task runs are left out."""
    before, after = task_figures(a), task_figures(b)
    changes = [_change(task, before.get(task), after.get(task)) for task in {*before, *after}]
    changes.sort(key=lambda c: (ORDER[c.change], c.score_change or 0.0, c.task_id))
    shared = sorted(task for task in before if task in after)
    differences = [after[task].mean_score - before[task].mean_score for task in shared]
    test = paired_bootstrap(differences)
    significant = test is not None and test.p_value < ALPHA
    moved = test.mean_difference if test is not None and significant else 0.0
    return Comparison(tasks=changes, test=test, regression=moved < 0, improvement=moved > 0)


def task_figures(rows: Iterable[TaskRow]) -> dict[str, TaskFigures]:
    """Per task with a scored run: scored and verified counts, pass rate and mean score."""
    scores: dict[str, list[float]] = {}
    verified: dict[str, int] = {}
    for row in rows:
        if row.outcome == "not_scored" or row.score is None:
            continue
        scores.setdefault(row.task_id, []).append(row.score)
        verified[row.task_id] = verified.get(row.task_id, 0) + (row.outcome == "verified")
    return {
        task: TaskFigures(
            scored=len(values),
            verified=verified[task],
            pass_rate=verified[task] / len(values),
            mean_score=math.fsum(values) / len(values),
        )
        for task, values in scores.items()
    }


def _change(task: str, a: TaskFigures | None, b: TaskFigures | None) -> TaskChange:
    if a is None or b is None:
        return TaskChange(
            task_id=task,
            a=a,
            b=b,
            pass_rate_change=None,
            score_change=None,
            change="only_b" if a is None else "only_a",
        )
    rate = b.pass_rate - a.pass_rate
    score = b.mean_score - a.mean_score
    worse, better = min(rate, score), max(rate, score)
    change: Change = "regressed" if worse < 0 else "improved" if better > 0 else "unchanged"
    return TaskChange(
        task_id=task, a=a, b=b, pass_rate_change=rate, score_change=score, change=change
    )


def paired_bootstrap(differences: Sequence[float]) -> PairedTest | None:
    """Interval and two-sided p-value of the mean of per-task differences; None under two tasks.

    The interval is the 2.5th and 97.5th percentiles of the resampled means; the p-value is the
    share of resampled means, shifted to a true difference of zero, at least as far from zero as
    the observed one ((count + 1) / (resamples + 1), so never 0).
    """
    if len(differences) < 2:
        return None
    import numpy as np  # here, not at the top: `assay` starts faster without it

    values = np.array(differences, dtype=float)
    observed = float(values.mean())
    rng = np.random.default_rng(SEED)
    drawn = rng.integers(0, len(values), size=(RESAMPLES, len(values)))
    means = values[drawn].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    # a tolerance keeps rounding noise (all differences equal) from counting as "as far"
    extreme = np.abs(means - observed) >= abs(observed) - 1e-12
    p_value = (int(extreme.sum()) + 1) / (RESAMPLES + 1)
    return PairedTest(
        tasks=len(values),
        mean_difference=observed,
        ci95=(float(low), float(high)),
        p_value=min(p_value, 1.0),
    )
