"""The verdict line names the rule violations and the task runs not scored next to the score."""

from __future__ import annotations

from rowmaker import repeats

from assay.runs.aggregate import aggregate
from assay.runs.headline import verdict_line
from assay.runs.run import BenchmarkRunResult


def run_of(rows) -> BenchmarkRunResult:
    return BenchmarkRunResult(
        **aggregate(rows).model_dump(),
        id="br_1",
        world="shop",
        world_version="1",
        agent="noop",
        repeats=1,
        tasks=len(rows),
        task_runs=len(rows),
        phase="completed",
        status="completed",
        started_at=None,
        finished_at=None,
    )


def test_a_broken_rule_is_named_beside_a_passing_score():
    # 11 of 12 verified, one rule broken: 0.917 passes, and the line says what else happened.
    rows = repeats("a", "v" * 11 + "r")
    assert verdict_line(run_of(rows)) == "score 0.917 (pass) · 1 rule violated · 0 not scored"


def test_not_scored_task_runs_are_counted_and_never_averaged():
    line = verdict_line(run_of(repeats("a", "vvx")))
    assert line == "score 1.000 (pass) · 0 rule violated · 1 not scored"


def test_a_verifier_blamed_on_the_agent_follows_the_counts():
    rows = repeats("a", "v") + repeats("b", "n", verifier_failures_blamed_on_agent=1)
    assert verdict_line(run_of(rows)).endswith(
        "· 0 not scored · 1 of 2 not achieved: the verifier failed after the agent acted"
    )
