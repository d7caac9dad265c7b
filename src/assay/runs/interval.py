"""A 95 % interval for a run's score: a seeded bootstrap over tasks, each task's repeats together."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from assay.runs.rows import TaskRow

if TYPE_CHECKING:
    import numpy as np

RESAMPLES = 2000
FEWEST_RESAMPLES = 1000
DRAWS = 100_000_000  # past this many task draws, resamples drop towards 1,000 to stay fast
SEED = 20260302
BATCH_CELLS = 4_000_000  # indices drawn at once: bounds memory whatever the number of tasks


def resamples_for(tasks: int) -> int:
    """2,000 resamples, fewer (never under 1,000) beyond 50,000 tasks."""
    return max(FEWEST_RESAMPLES, min(RESAMPLES, DRAWS // max(tasks, 1)))


def task_sums(rows: Iterable[TaskRow]) -> tuple[list[float], list[int]]:
    """Sum of scores and count of scored task runs per task, in task-id order."""
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for row in rows:
        if row.outcome != "not_scored" and row.score is not None:
            sums[row.task_id] = sums.get(row.task_id, 0.0) + row.score
            counts[row.task_id] = counts.get(row.task_id, 0) + 1
    tasks = sorted(sums)
    return [sums[task] for task in tasks], [counts[task] for task in tasks]


def ci95(rows: Iterable[TaskRow]) -> tuple[float, float] | None:
    """Percentile interval of the mean task-run score; None with fewer than two scored tasks.

    Tasks are drawn with replacement and a drawn task brings all its scored repeats, so the
    interval reflects how much the score depends on which tasks were chosen.
    """
    task_scores, task_counts = task_sums(rows)
    tasks = len(task_scores)
    if tasks < 2:
        return None
    import numpy as np  # here, not at the top, and only now: a run of one task needs none

    sums, counts = np.array(task_scores, dtype=float), np.array(task_counts, dtype=float)
    resamples = resamples_for(tasks)
    rng = np.random.default_rng(SEED)
    even = bool(np.all(counts == counts[0]))  # equal repeats: one gather instead of two
    batch = max(1, BATCH_CELLS // tasks)
    statistics: list[np.ndarray] = []
    for start in range(0, resamples, batch):
        drawn = rng.integers(0, tasks, size=(min(batch, resamples - start), tasks))
        total = sums[drawn].sum(axis=1)
        weight = counts[0] * tasks if even else counts[drawn].sum(axis=1)
        statistics.append(total / weight)
    low, high = np.percentile(np.concatenate(statistics), [2.5, 97.5])
    return float(low), float(high)
