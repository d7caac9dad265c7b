"""A benchmark run's figures from its task runs: pure functions of light rows."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from pydantic import BaseModel

from assay.runs.interval import ci95
from assay.runs.passk import pass_k, task_counts
from assay.runs.rows import AxisRow, TaskRow, row_of
from assay.score.result import TaskRunResult
from assay.score.summary import SummaryTotals
from assay.score.task import OUTCOMES, Outcome, Verdict, verdict

COUNTED = [name for name in SummaryTotals.model_fields if name != "termination"]


class AxisFigures(BaseModel, defer_build=True):
    """One axis over the task runs that have it: the mean of its score, or, for an axis of rule
    checks only, no score at all (a rule held earns no credit) but the rules held of all checked."""

    score: float | None
    task_runs: int
    rules: int = 0
    rules_held: int = 0

    @property
    def rules_only(self) -> bool:
        return self.score is None


class SplitFigures(BaseModel, defer_build=True):
    score: float | None
    verdict: Verdict
    outcomes: dict[Outcome, int]
    mean_reward: float | None
    scored: int
    not_scored: int


class Figures(SplitFigures):
    pass_at_k: dict[str, float]
    pass_hat_k: dict[str, float]
    ci95: tuple[float, float] | None
    axes: dict[str, AxisFigures]
    by_split: dict[str, SplitFigures]
    summary: SummaryTotals


def aggregate(runs: Sequence[TaskRow | TaskRunResult]) -> Figures:
    """Every figure of a benchmark run; not-scored task runs are counted apart, never averaged."""
    rows = [run if isinstance(run, TaskRow) else row_of(run) for run in runs]
    at, hat = pass_k(list(task_counts(rows).values()))
    return Figures(
        **split_figures(rows).model_dump(),
        pass_at_k=at,
        pass_hat_k=hat,
        ci95=ci95(rows),
        axes=axis_means(rows),
        by_split={split: split_figures(group) for split, group in by_split(rows).items()},
        summary=summary_totals(rows),
    )


def split_figures(rows: Sequence[TaskRow]) -> SplitFigures:
    """Score, verdict, outcome counts and mean reward of some task runs."""
    scored = [row for row in rows if row.outcome != "not_scored"]
    score = mean([row.score for row in scored if row.score is not None])
    return SplitFigures(
        score=score,
        verdict=verdict(score, bool(scored)),
        outcomes=outcome_counts(rows),
        mean_reward=mean([float(row.reward) for row in scored if row.reward is not None]),
        scored=len(scored),
        not_scored=len(rows) - len(scored),
    )


def outcome_counts(rows: Iterable[TaskRow]) -> dict[Outcome, int]:
    counts: dict[Outcome, int] = dict.fromkeys(OUTCOMES, 0)
    for row in rows:
        counts[row.outcome] += 1
    return counts


def axis_means(rows: Iterable[TaskRow]) -> dict[str, AxisFigures]:
    """Per axis, the mean score over the task runs that have the axis: scored ones, and completed
    ones with no primary reward to score them by (a reward file of several metrics); an axis that
    is rules only in every one of them has rules held instead of a score."""
    found: dict[str, list[AxisRow]] = {}
    for row in rows:
        if row.outcome == "not_scored" and row.status != "completed":
            continue
        for name, axis in row.axes.items():
            found.setdefault(name, []).append(axis)
    return {name: axis_figures(axes) for name, axes in sorted(found.items())}


def axis_figures(axes: Sequence[AxisRow]) -> AxisFigures:
    rules_only = all(axis.rules_only for axis in axes)
    return AxisFigures(
        score=None if rules_only else math.fsum(axis.score for axis in axes) / len(axes),
        task_runs=len(axes),
        rules=sum(axis.rules for axis in axes),
        rules_held=sum(axis.rules_held for axis in axes),
    )


def by_split(rows: Iterable[TaskRow]) -> dict[str, list[TaskRow]]:
    groups: dict[str, list[TaskRow]] = {}
    for row in rows:
        groups.setdefault(row.split, []).append(row)
    return dict(sorted(groups.items()))


def summary_totals(rows: Iterable[TaskRow]) -> SummaryTotals:
    """Counts and sums of the summaries of every task run, scored or not; terminations by kind."""
    sums = dict.fromkeys(COUNTED, 0)
    terminations: dict[str, int] = {}
    for row in rows:
        summary = row.summary
        for name in COUNTED:
            sums[name] += summary.get(name, 0)  # a summary stored before a field existed
        termination = summary["termination"]
        terminations[termination] = terminations.get(termination, 0) + 1
    return SummaryTotals(**sums, termination=dict(sorted(terminations.items())))


def mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None
