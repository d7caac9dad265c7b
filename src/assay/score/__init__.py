"""Check runs → outcome, reward, score, verdict, axes, summary."""

from assay.score.result import Status, TaskRunResult
from assay.score.summary import Summary, SummaryTotals, summarize, total
from assay.score.task import (
    OUTCOMES,
    REWARDS,
    Axis,
    Outcome,
    TaskScore,
    Verdict,
    axes,
    fraction,
    outcome,
    passed,
    rule_failed,
    score_task,
    task_score,
    verdict,
    weighted_score,
)

__all__ = [
    "OUTCOMES",
    "REWARDS",
    "Axis",
    "Outcome",
    "Status",
    "Summary",
    "SummaryTotals",
    "TaskRunResult",
    "TaskScore",
    "Verdict",
    "axes",
    "fraction",
    "outcome",
    "passed",
    "rule_failed",
    "score_task",
    "summarize",
    "task_score",
    "total",
    "verdict",
    "weighted_score",
]
