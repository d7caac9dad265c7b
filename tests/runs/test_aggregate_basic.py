"""A benchmark run's score is the mean over scored task runs; not-scored ones are counted apart."""

from __future__ import annotations

from assay.runs import aggregate
from assay.score import Summary, TaskRunResult


def result(outcome, score, reward, termination="finished", **summary):
    return TaskRunResult(
        id="tr",
        task_id="t",
        title="t",
        split="train",
        repeat=0,
        agent="a",
        status="completed",
        outcome=outcome,
        reward=reward,
        score=score,
        verdict=None,
        passed=outcome == "verified",
        fraction=0.0,
        axes={},
        checks=[],
        summary=Summary(
            false_completion=summary.get("false_completion", False),
            duplicate_effects=summary.get("duplicate_effects", 0),
            faults=summary.get("faults", 0),
            recovered=summary.get("recovered", False),
            unnecessary_interruptions=0,
            rejected_attempts=summary.get("rejected_attempts", 0),
            turns=summary.get("turns", 1),
            termination=termination,
        ),
        output="",
        error=None,
        final_state_hash="",
        started_at="",
        duration_s=0.0,
    )


def test_mean_over_scored_runs_only():
    figures = aggregate(
        [
            result("verified", 1.0, 1),
            result("not_achieved", 0.5, 0),
            result("rule_violated", 0.0, -1),
            result("not_scored", None, None, "agent_error"),
        ]
    )
    assert figures.score == 0.5
    assert figures.verdict == "partial"
    assert figures.mean_reward == 0.0
    assert figures.outcomes == {
        "verified": 1,
        "not_achieved": 1,
        "rule_violated": 1,
        "not_scored": 1,
    }
    assert (figures.scored, figures.not_scored) == (3, 1)


def test_nothing_scored():
    figures = aggregate([result("not_scored", None, None)])
    assert (figures.score, figures.verdict, figures.mean_reward) == (None, "fail", None)


def test_summary_totals_add_up():
    figures = aggregate(
        [
            result("verified", 1.0, 1, faults=1, recovered=True, turns=3),
            result(
                "not_achieved",
                0.0,
                0,
                "max_turns",
                false_completion=True,
                duplicate_effects=2,
                rejected_attempts=1,
                turns=5,
            ),
        ]
    )
    totals = figures.summary
    assert (totals.faults, totals.recovered, totals.false_completion, totals.duplicate_effects) == (
        1,
        1,
        1,
        2,
    )
    assert (totals.rejected_attempts, totals.turns) == (1, 8)
    assert totals.termination == {"finished": 1, "max_turns": 1}
