"""pass@k and pass^k: unbiased estimators over tasks, from scored repeats of each task."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from assay.runs.rows import TaskRow

Counts = tuple[int, int]  # (n scored task runs, c of them verified)


def task_counts(rows: Iterable[TaskRow]) -> dict[str, Counts]:
    """Scored and verified task runs per task; tasks with no scored run are left out."""
    scored: dict[str, int] = {}
    verified: dict[str, int] = {}
    for row in rows:
        if row.outcome != "not_scored":
            scored[row.task_id] = scored.get(row.task_id, 0) + 1
            verified[row.task_id] = verified.get(row.task_id, 0) + (row.outcome == "verified")
    return {task: (n, verified[task]) for task, n in scored.items()}


def k_values(fewest: int) -> list[int]:
    """Every k from 1 to the fewest scored repeats of any task: the estimators hold for all k ≤ n."""
    return list(range(1, fewest + 1))


def pass_at(n: int, c: int, k: int) -> float:
    """The chance that at least one of k runs drawn from n (c verified) is verified."""
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat(n: int, c: int, k: int) -> float:
    """The chance that all of k runs drawn from n (c verified) are verified."""
    return math.comb(c, k) / math.comb(n, k)


def pass_k(counts: Sequence[Counts]) -> tuple[dict[str, float], dict[str, float]]:
    """pass@k and pass^k averaged over tasks, keyed by k as text; empty with no scored task."""
    if not counts:
        return {}, {}
    wanted = k_values(min(n for n, _ in counts))
    at: dict[int, list[float]] = {k: [] for k in wanted}
    hat: dict[int, list[float]] = {k: [] for k in wanted}
    for n, c in counts:
        failed = n - c
        # C(top, k) / C(n, k) is the product of (top − i) / (n − i) for i < k: grow both products
        # one factor at a time and read them off at each wanted k.
        none_verified = all_verified = 1.0
        for k in wanted:
            none_verified *= (failed - k + 1) / (n - k + 1)
            all_verified *= (c - k + 1) / (n - k + 1)
            at[k].append(1.0 - none_verified if failed >= k else 1.0)
            hat[k].append(all_verified if c >= k else 0.0)
    tasks = len(counts)
    return (
        {str(k): math.fsum(values) / tasks for k, values in at.items()},
        {str(k): math.fsum(values) / tasks for k, values in hat.items()},
    )
