"""A benchmark run's figures from its task runs: pure functions of the results."""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel

from assay.score.result import TaskRunResult
from assay.score.summary import SummaryTotals, total
from assay.score.task import OUTCOMES, Outcome, Verdict, verdict


class Figures(BaseModel):
    score: float | None
    verdict: Verdict
    outcomes: dict[Outcome, int]
    mean_reward: float | None
    scored: int
    not_scored: int
    summary: SummaryTotals


def aggregate(results: Sequence[TaskRunResult]) -> Figures:
    """Mean score and reward over scored task runs; not-scored ones are counted apart."""
    scored = [result for result in results if result.outcome != "not_scored"]
    outcomes: dict[Outcome, int] = dict.fromkeys(OUTCOMES, 0)
    for result in results:
        outcomes[result.outcome] += 1
    score = _mean([result.score for result in scored if result.score is not None])
    reward = _mean([float(result.reward) for result in scored if result.reward is not None])
    return Figures(
        score=score,
        verdict=verdict(score, bool(scored)),
        outcomes=outcomes,
        mean_reward=reward,
        scored=len(scored),
        not_scored=len(results) - len(scored),
        summary=total(result.summary for result in results),
    )


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None
