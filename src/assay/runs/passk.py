"""pass@k and pass^k: unbiased estimators over tasks, from scored repeats of each task."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from assay.runs.rows import TaskRow

Counts = tuple[int, int]  # (n scored task runs, c of them verified)


def task_counts(rows: Iterable[TaskRow]) -> dict[str, Counts]:
    """Scored and verified task runs per task; tasks with no scored run are left out."""
    counts: dict[str, list[int]] = {}
    for row in rows:
        if row.outcome == "not_scored":
            continue
        pair = counts.setdefault(row.task_id, [0, 0])
        pair[0] += 1
        pair[1] += row.outcome == "verified"
    return {task: (n, c) for task, (n, c) in counts.items()}


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
    ks = k_values(min(n for n, _ in counts))
    at = {str(k): math.fsum(pass_at(n, c, k) for n, c in counts) / len(counts) for k in ks}
    hat = {str(k): math.fsum(pass_hat(n, c, k) for n, c in counts) / len(counts) for k in ks}
    return at, hat
