"""Scoring rules of DESIGN.md, at their edges."""

from __future__ import annotations

import pytest

from assay.score import (
    axes,
    fraction,
    outcome,
    passed,
    score_task,
    task_score,
    verdict,
    weighted_score,
)
from assay.verify.check_run import CheckRun


def run(
    type_: str = "goal", ok: bool = True, score: float | None = None, weight: float = 1.0, axis=None
):
    return CheckRun(
        name=f"{type_} check",
        type=type_,
        kind="sql",
        weight=weight,
        axis=axis,
        passed=ok,
        score=(1.0 if ok else 0.0) if score is None else score,
        details="",
        evidence={},
    )


@pytest.mark.parametrize(
    ("checks", "expected"),
    [
        ([run("goal", True)], "verified"),
        ([run("goal", True), run("goal", False)], "not_achieved"),
        ([run("goal", True), run("rule", False)], "rule_violated"),
        ([run("goal", False), run("rule", False)], "rule_violated"),
        ([run("goal", True), run("optional", False)], "verified"),
        ([run("optional", True)], "not_achieved"),  # no goal: nothing was shown to be done
        ([], "not_achieved"),
        ([run("goal", True), run("rule", True)], "verified"),
    ],
)
def test_outcome(checks, expected):
    assert outcome(checks) == expected


def test_not_scored_wins_over_everything():
    assert outcome([run("rule", False)], scored=False) == "not_scored"
    result = score_task([run("goal", True)], scored=False)
    assert (result.outcome, result.reward, result.score, result.verdict) == (
        "not_scored",
        None,
        None,
        None,
    )


@pytest.mark.parametrize(
    ("checks", "reward"),
    [([run("goal", True)], 1), ([run("goal", False)], 0), ([run("rule", False)], -1)],
)
def test_reward(checks, reward):
    assert score_task(checks).reward == reward


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        (1.0, "pass"),
        (0.9, "pass"),
        (0.1 * 3 * 3, "pass"),  # 0.8999999999999999 in floating point is 0.9
        (0.8999, "partial"),
        (0.5, "partial"),
        (1e-9, "partial"),
        (0.0, "fail"),
    ],
)
def test_verdict_thresholds(score, expected):
    assert verdict(score) == expected


def test_verdict_is_fail_without_checks():
    assert verdict(1.0, has_checks=False) == "fail"
    assert score_task([]).verdict == "fail"


def test_weighted_score():
    checks = [
        run("goal", True, weight=2),
        run("goal", False, weight=1),
        run("optional", True, score=0.5, weight=1),
    ]
    assert weighted_score(checks) == pytest.approx((2 * 1 + 0 + 0.5) / 4)
    assert weighted_score([]) == 0.0
    assert weighted_score([run(weight=0)]) == 0.0


def test_nine_of_ten_by_weight_is_exactly_pass():
    result = score_task([run("goal", True, weight=9), run("optional", False, weight=1)])
    assert result.score == 0.9
    assert result.verdict == "pass"
    assert result.outcome == "verified"


def test_axes_group_by_axis_with_default_bucket():
    checks = [
        run("goal", True, weight=2, axis="correctness"),
        run("rule", True, weight=1, axis="safety"),
        run("goal", True, weight=1),
        run("goal", False, weight=1),
    ]
    found = {name: (a.score, a.weight) for name, a in axes(checks).items()}
    # A rule adds no weight to its axis; an axis of rules only shows that they held.
    assert found == {"correctness": (1.0, 2.0), "safety": (1.0, 0.0), "__default__": (0.5, 2.0)}


def test_a_failed_rule_zeroes_every_axis():
    checks = [
        run("goal", True, weight=2, axis="correctness"),
        run("rule", False, weight=1, axis="safety"),
        run("goal", True, weight=1),
        run("optional", True, weight=1, axis="tone"),
    ]
    found = {name: (a.score, a.weight) for name, a in axes(checks).items()}
    assert found == {
        "correctness": (0.0, 2.0),
        "safety": (0.0, 0.0),
        "__default__": (0.0, 1.0),
        "tone": (0.0, 1.0),
    }


def test_an_axis_of_rules_only_counts_its_rules_held_and_is_not_a_score():
    checks = [
        run("goal", True, weight=1),
        run("rule", True, axis="safety"),
        run("rule", False, axis="safety"),
        run("rule", True, axis="mixed"),
        run("goal", True, axis="mixed"),
    ]
    found = axes(checks)
    assert (found["safety"].rules, found["safety"].rules_held) == (2, 1)
    assert found["safety"].rules_only
    assert (found["mixed"].rules, found["mixed"].rules_held) == (1, 1)
    assert not found["mixed"].rules_only
    assert not found["__default__"].rules_only


def test_passed_and_fraction():
    checks = [run("goal", True), run("optional", False), run("rule", True)]
    assert passed(checks) is True
    assert fraction(checks) == pytest.approx(2 / 3)
    assert passed([run("rule", False)]) is False
    assert passed([run("goal", False)]) is False
    assert fraction([]) == 0.0


def test_optional_failing_alone_moves_score_not_outcome():
    result = score_task([run("goal", True, weight=1), run("optional", False, weight=1)])
    assert result.outcome == "verified"
    assert result.passed is True
    assert result.score == 0.5
    assert result.verdict == "partial"


@pytest.mark.parametrize(
    ("checks", "score", "verdict_", "outcome_"),
    [
        # Doing nothing: the rules held, the goal was not done; held rules earn nothing.
        ([run("goal", False), run("rule", True), run("rule", True)], 0.0, "fail", "not_achieved"),
        ([run("goal", True), run("rule", True, weight=5)], 1.0, "pass", "verified"),
        # Any failed rule: score 0 and fail, whatever else passed ("nothing else matters").
        (
            [run("goal", True), run("optional", True), run("rule", False)],
            0.0,
            "fail",
            "rule_violated",
        ),
        (
            [run("goal", True, weight=9), run("rule", False, weight=0.1)],
            0.0,
            "fail",
            "rule_violated",
        ),
        # The mean is over goal and optional checks only.
        (
            [run("goal", True), run("optional", False), run("rule", True)],
            0.5,
            "partial",
            "verified",
        ),
        (
            [run("goal", False), run("optional", True, score=0.6), run("rule", True)],
            0.3,
            "partial",
            "not_achieved",
        ),
        # No goal check: nothing was shown done, so no credit, whatever the rules or optionals say.
        ([run("rule", True)], 0.0, "fail", "not_achieved"),
        ([run("rule", True), run("optional", True)], 0.0, "fail", "not_achieved"),
        ([run("rule", False)], 0.0, "fail", "rule_violated"),
    ],
)
def test_rule_checks_add_nothing_and_a_failed_rule_is_zero(checks, score, verdict_, outcome_):
    result = score_task(checks)
    assert (result.score, result.verdict, result.outcome) == (
        pytest.approx(score),
        verdict_,
        outcome_,
    )
    assert task_score(checks) == pytest.approx(score)


def test_fraction_still_counts_every_check():
    checks = [run("goal", True), run("rule", True), run("rule", False), run("optional", False)]
    result = score_task(checks)
    assert result.fraction == 0.5
    assert result.score == 0.0
