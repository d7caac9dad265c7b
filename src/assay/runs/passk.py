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
    """Powers of two and multiples of five, up to the fewest scored repeats of any task."""
    powers = {2**exponent for exponent in range(fewest.bit_length()) if 2**exponent <= fewest}
    return sorted(powers | set(range(5, fewest + 1, 5)))


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
    import numpy as np  # here, not at the top: `assay` starts faster without it

    n, c = (np.array(column, dtype=float) for column in zip(*counts, strict=True))
    at: dict[str, float] = {}
    hat: dict[str, float] = {}
    for k in k_values(int(n.min())):
        at[str(k)] = float(np.mean(1.0 - ratios(n - c, n, k)))
        hat[str(k)] = float(np.mean(ratios(c, n, k)))
    return at, hat


def ratios(top, n, k: int):
    """C(top, k) / C(n, k) per task, as the product of (top − i) / (n − i) for i < k; 0 if top < k."""
    import numpy as np

    product = np.ones_like(n)
    for i in range(k):
        product *= (top - i) / (n - i)
    return np.where(top >= k, product, 0.0)
