"""A benchmark run's figures against hand-worked tables."""

from __future__ import annotations

import pytest
from rowmaker import repeats, row

from assay.runs.aggregate import aggregate, axis_means, split_figures, summary_totals
from assay.runs.headline import axis_text
from assay.runs.rows import AxisRow


def test_a_hand_worked_run():
    rows = [
        row("a", "verified", 1.0, repeat=0, axes={"correctness": 1.0, "safety": 1.0}),
        row("a", "not_achieved", 0.5, repeat=1, axes={"correctness": 0.25, "safety": 1.0}),
        row("b", "rule_violated", 0.25, split="dev", axes={"safety": 0.0}),
        row("b", "verified", 0.75, repeat=1, split="dev"),
        row("c", "not_scored", split="dev", axes={"safety": 0.0}),
    ]
    figures = aggregate(rows)
    assert figures.score == pytest.approx((1.0 + 0.5 + 0.25 + 0.75) / 4)
    assert figures.verdict == "partial"
    assert figures.outcomes == {
        "verified": 2,
        "not_achieved": 1,
        "rule_violated": 1,
        "not_scored": 1,
    }
    assert figures.mean_reward == pytest.approx((1 + 0 - 1 + 1) / 4)
    assert (figures.scored, figures.not_scored) == (4, 1)
    # a: n=2 c=1; b: n=2 c=1; c has no scored run. k up to 2.
    assert figures.pass_at_k == pytest.approx({"1": 0.5, "2": 1.0})
    assert figures.pass_hat_k == pytest.approx({"1": 0.5, "2": 0.0})
    assert figures.axes["correctness"].score == pytest.approx(0.625)
    assert figures.axes["correctness"].task_runs == 2
    assert figures.axes["safety"].score == pytest.approx(2 / 3)
    assert figures.axes["safety"].task_runs == 3
    assert list(figures.by_split) == ["dev", "train"]
    dev = figures.by_split["dev"]
    assert (dev.score, dev.scored, dev.not_scored) == (pytest.approx(0.5), 2, 1)
    assert dev.mean_reward == pytest.approx(0.0)
    assert figures.by_split["train"].score == pytest.approx(0.75)
    low, high = figures.ci95
    assert low <= figures.score <= high


def test_the_json_carries_every_figure():
    data = aggregate(repeats("a", "vn") + repeats("b", "vv")).model_dump(mode="json")
    assert set(data) >= {"pass_at_k", "pass_hat_k", "ci95", "axes", "by_split", "summary"}
    assert data["pass_at_k"] == {"1": 0.75, "2": 1.0}
    assert data["pass_hat_k"] == {"1": 0.75, "2": 0.5}
    assert isinstance(data["ci95"], list)
    assert len(data["ci95"]) == 2


@pytest.mark.parametrize(
    ("scores", "verdict"),
    [
        ([0.9, 0.9], "pass"),
        ([1.0, 0.8], "pass"),
        ([1.0, 0.79], "partial"),
        ([0.01, 0.0], "partial"),
        ([0.0, 0.0], "fail"),
    ],
)
def test_the_verdict_follows_the_thresholds(scores, verdict):
    rows = [row(f"t{i}", "not_achieved", score) for i, score in enumerate(scores)]
    assert split_figures(rows).verdict == verdict


def test_only_not_scored_runs_give_no_score_and_a_fail():
    figures = aggregate(repeats("a", "xx"))
    assert (figures.score, figures.mean_reward, figures.verdict) == (None, None, "fail")
    assert (figures.scored, figures.not_scored) == (0, 2)
    assert figures.pass_at_k == {}
    assert figures.ci95 is None
    assert figures.axes == {}


def test_no_task_runs_at_all():
    figures = aggregate([])
    assert figures.score is None
    assert figures.by_split == {}
    assert figures.summary.turns == 0


def test_a_not_scored_run_never_moves_a_mean():
    base = repeats("a", "vn") + repeats("b", "v")
    with_failure = [*base, row("b", "not_scored", repeat=1, axes={"x": 0.0})]
    assert aggregate(with_failure).score == aggregate(base).score
    assert aggregate(with_failure).mean_reward == aggregate(base).mean_reward
    assert axis_means(with_failure) == axis_means(base)


def test_summary_counts_every_task_run_and_terminations_by_kind():
    rows = [
        row("a", false_completion=True, turns=3, faults=2, recovered=True),
        row("b", duplicate_effects=2, rejected_attempts=1, turns=4, termination="max_turns"),
        row("c", "not_scored", unnecessary_interruptions=1, termination="agent_error"),
    ]
    totals = summary_totals(rows)
    assert totals.false_completion == 1
    assert totals.duplicate_effects == 2
    assert totals.faults == 2
    assert totals.recovered == 1
    assert totals.unnecessary_interruptions == 1
    assert totals.rejected_attempts == 1
    assert totals.turns == 3 + 4 + 1
    assert totals.termination == {"agent_error": 1, "finished": 1, "max_turns": 1}


def test_metrics_of_a_completed_run_with_no_primary_reward_count_in_the_axis_means():
    rows = [
        row("a", "verified", 1.0, axes={"reward": 1.0, "speed": 1.0}),
        row("b", "not_scored", axes={"correctness": 1.0, "speed": 0.0}, status="completed"),
        row("c", "not_scored", axes={"speed": 1.0}, status="failed"),
    ]
    figures = aggregate(rows)
    assert figures.axes["speed"].score == pytest.approx(0.5)
    assert figures.axes["speed"].task_runs == 2
    assert figures.axes["correctness"].task_runs == 1
    assert (figures.score, figures.scored, figures.not_scored) == (1.0, 1, 2)
    assert figures.pass_at_k == {"1": 1.0}  # only the task with a primary reward counts


def test_an_axis_of_rules_only_has_rules_held_and_no_score():
    held = AxisRow(1.0, rules_only=True, rules=2, rules_held=2)
    broken = AxisRow(0.0, rules_only=True, rules=2, rules_held=1)
    rows = [
        row("a", "verified", axes={"safety": held, "correctness": 1.0}),
        row("b", "rule_violated", axes={"safety": broken, "correctness": 0.0}),
        row("c", "not_scored", axes={"safety": held}),
    ]
    figures = aggregate(rows)
    safety = figures.axes["safety"]
    assert safety.score is None
    assert (safety.rules_held, safety.rules, safety.task_runs) == (3, 4, 2)
    assert axis_text(safety) == "rules held 3/4"
    assert axis_text(figures.axes["correctness"]) == "0.500"
    assert figures.model_dump(mode="json")["axes"]["safety"]["score"] is None


def test_an_axis_with_a_score_in_some_task_run_keeps_its_mean():
    rows = [
        row("a", "verified", axes={"x": AxisRow(1.0, rules_only=True, rules=1, rules_held=1)}),
        row("b", "verified", 0.5, axes={"x": AxisRow(0.5, rules=1, rules_held=1)}),
    ]
    assert axis_means(rows)["x"].score == pytest.approx(0.75)
