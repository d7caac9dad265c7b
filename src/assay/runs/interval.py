"""A 95 % interval for a run's score: a seeded bootstrap over tasks, each task's repeats together."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from assay.runs.rows import TaskRow

RESAMPLES = 2000
SEED = 20260302
BATCH_CELLS = 4_000_000  # indices drawn at once: bounds memory whatever the number of tasks


def task_sums(rows: Iterable[TaskRow]) -> tuple[np.ndarray, np.ndarray]:
    """Sum of scores and count of scored task runs per task, in task-id order."""
    sums: dict[str, list[float]] = {}
    for row in rows:
        if row.outcome == "not_scored" or row.score is None:
            continue
        pair = sums.setdefault(row.task_id, [0.0, 0.0])
        pair[0] += row.score
        pair[1] += 1.0
    ordered = [sums[task] for task in sorted(sums)]
    table = np.array(ordered, dtype=float).reshape(-1, 2)
    return table[:, 0], table[:, 1]


def ci95(rows: Iterable[TaskRow], resamples: int = RESAMPLES) -> tuple[float, float] | None:
    """Percentile interval of the mean task-run score; None with fewer than two scored tasks.

    Tasks are drawn with replacement and a drawn task brings all its scored repeats, so the
    interval reflects how much the score depends on which tasks were chosen.
    """
    sums, counts = task_sums(rows)
    tasks = len(sums)
    if tasks < 2:
        return None
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
