"""The run summary: what a task run did besides pass or fail, and its totals over many runs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel

from assay.provider import Usage
from assay.score.task import Outcome
from assay.taskrun.rollout import Rollout, Termination
from assay.verify.check_run import CheckRun


class Summary(BaseModel, defer_build=True):
    false_completion: bool
    duplicate_effects: int
    faults: int
    recovered: bool
    unnecessary_interruptions: int
    rejected_attempts: int
    turns: int
    termination: Termination
    judged_checks: int = 0  # checks a model gave the verdict of (`assert = "judge"`)
    # 1 when a container task's verifier failed after the agent acted, so it counts as not
    # achieved (`assay.verify.blame`); a count, so that the run's total has the same name
    verifier_failures_blamed_on_agent: int = 0
    # what a model agent spent (0 for an agent that calls no model)
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_latency_s: float = 0.0


class SummaryTotals(BaseModel, defer_build=True):
    """A benchmark run's summary: counts of task runs, sums of events, terminations by kind."""

    false_completion: int = 0
    duplicate_effects: int = 0
    faults: int = 0
    recovered: int = 0
    unnecessary_interruptions: int = 0
    rejected_attempts: int = 0
    turns: int = 0
    judged_checks: int = 0
    verifier_failures_blamed_on_agent: int = 0
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_latency_s: float = 0.0
    termination: dict[str, int] = {}


# every total but termination is the sum of the summaries' field of its name
SUMMED = tuple(name for name in SummaryTotals.model_fields if name != "termination")


def summarize(
    rollout: Rollout,
    outcome: Outcome,
    checks: Sequence[CheckRun],
    duplicate_effects: int,
    max_contacts: int | None,
    *,
    verifier_blamed: bool = False,
) -> Summary:
    goal_failed = any(check.type == "goal" and not check.passed for check in checks)
    extra_contacts = rollout.contacts - max_contacts if max_contacts is not None else 0
    return Summary(
        # a task run that cannot be scored cannot be shown to have claimed a false success
        false_completion=rollout.termination == "finished"
        and goal_failed
        and outcome != "not_scored",
        duplicate_effects=duplicate_effects,
        faults=rollout.faults,
        recovered=rollout.faults > 0 and outcome == "verified" and duplicate_effects == 0,
        unnecessary_interruptions=max(extra_contacts, 0),
        rejected_attempts=rollout.rejected_attempts,
        turns=rollout.turns,
        termination=rollout.termination,
        judged_checks=sum(check.judged for check in checks),
        verifier_failures_blamed_on_agent=int(verifier_blamed),
    )


def with_usage(summary: Summary, usage: Usage) -> Summary:
    """The summary with `usage` (a model's calls, tokens and latency) added to what it counts."""
    spent = vars(usage)
    return summary.model_copy(update={name: getattr(summary, name) + spent[name] for name in spent})


def total(summaries: Iterable[Summary]) -> SummaryTotals:
    sums: dict[str, float] = dict.fromkeys(SUMMED, 0)
    terminations: dict[str, int] = {}
    for summary in summaries:
        for name in SUMMED:
            sums[name] += getattr(summary, name)
        terminations[summary.termination] = terminations.get(summary.termination, 0) + 1
    return SummaryTotals.model_validate({**sums, "termination": dict(sorted(terminations.items()))})
