"""The run's figures as words: the verdict line, an axis's figure and the k worth a table row."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.runs.aggregate import AxisFigures
    from assay.runs.run import BenchmarkRunResult
    from assay.score.task import Axis


def verdict_line(run: BenchmarkRunResult) -> str:
    """`score 0.917 (pass) · 1 rule violated · 0 not scored`: the score never without the task runs
    that broke a rule and those not scored, then those a failed verifier after the agent scored 0."""
    score = "—" if run.score is None else f"{run.score:.3f}"
    parts = [
        f"score {score} ({run.verdict})",
        f"{run.outcomes.get('rule_violated', 0)} rule violated",
        f"{run.not_scored} not scored",
    ]
    blamed = run.summary.verifier_failures_blamed_on_agent
    if blamed:
        ran = run.scored + run.not_scored
        parts.append(f"{blamed} of {ran} not achieved: the verifier failed after the agent acted")
    return " · ".join(parts)


def axis_text(axis: Axis | AxisFigures, digits: int = 3) -> str:
    """An axis's figure: its score, or `rules held N/M` for an axis of rule checks only."""
    if axis.rules_only:
        return f"rules held {axis.rules_held}/{axis.rules}"
    return "—" if axis.score is None else f"{axis.score:.{digits}f}"


def readable_k(ks: Iterable[str]) -> list[str]:
    """The k a table shows of every k computed: 1, powers of two, multiples of five, and the last."""
    numbers = sorted(int(k) for k in ks)
    if not numbers:
        return []
    last = numbers[-1]
    return [str(k) for k in numbers if k & (k - 1) == 0 or k % 5 == 0 or k == last]


def readable_pass_k(values: Mapping[str, float]) -> dict[str, float]:
    return {k: values[k] for k in readable_k(values)}
