"""Comparing two runs: per-task changes, regressions first, and the seeded paired bootstrap."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rowmaker import repeats, row

from assay.runs.compare import RESAMPLES, compare, paired_bootstrap, task_figures


def test_changes_are_b_minus_a_with_regressions_first_the_worst_first():
    a = (
        repeats("slips", "vv")
        + repeats("falls", "vv")
        + repeats("rises", "nn")
        + repeats("same", "vn")
    )
    b = (
        repeats("slips", "vn")
        + repeats("falls", "nn")
        + repeats("rises", "vv")
        + repeats("same", "nv")
    )
    changes = compare(a, b).tasks
    assert [(c.task_id, c.change) for c in changes] == [
        ("falls", "regressed"),
        ("slips", "regressed"),
        ("rises", "improved"),
        ("same", "unchanged"),
    ]
    slips = changes[1]
    assert (slips.a.pass_rate, slips.b.pass_rate, slips.pass_rate_change) == (1.0, 0.5, -0.5)
    assert (slips.a.mean_score, slips.b.mean_score, slips.score_change) == (1.0, 0.5, -0.5)


def test_a_lower_score_with_the_same_pass_rate_is_a_regression():
    a = [row("t", "not_achieved", 0.8)]
    b = [row("t", "not_achieved", 0.4)]
    (task,) = compare(a, b).tasks
    assert (task.change, task.pass_rate_change) == ("regressed", 0.0)
    assert task.score_change == pytest.approx(-0.4)


def test_not_scored_runs_are_left_out_and_one_sided_tasks_are_not_paired():
    a = repeats("both", "vx") + repeats("gone", "v") + repeats("blank", "xx")
    b = repeats("both", "xv") + repeats("new", "n")
    figures = task_figures(a)
    assert set(figures) == {"both", "gone"}
    assert (figures["both"].scored, figures["both"].verified) == (1, 1)
    comparison = compare(a, b)
    assert [(c.task_id, c.change) for c in comparison.tasks] == [
        ("both", "unchanged"),
        ("gone", "only_a"),
        ("new", "only_b"),
    ]
    assert comparison.tasks[1].score_change is None
    assert comparison.test is None  # one shared task: no test
    assert not comparison.regression


def test_every_task_worse_is_a_significant_regression():
    a = [row(f"t{i}", "verified") for i in range(5)]
    b = [row(f"t{i}", "not_achieved") for i in range(5)]
    comparison = compare(a, b)
    test = comparison.test
    assert test.tasks == 5
    assert test.mean_difference == -1.0
    assert test.ci95 == (-1.0, -1.0)
    assert test.p_value == 1 / (RESAMPLES + 1)
    assert comparison.regression and not comparison.improvement
    assert compare(b, a).improvement and not compare(b, a).regression


def test_no_difference_has_p_one():
    rows = [row(f"t{i}", "verified", 0.1 * i) for i in range(6)]
    comparison = compare(rows, rows)
    assert comparison.test.p_value == 1.0
    assert comparison.test.ci95 == (0.0, 0.0)
    assert not comparison.regression and not comparison.improvement
    assert {c.change for c in comparison.tasks} == {"unchanged"}


def test_a_mixed_change_is_not_significant_and_the_draws_are_seeded():
    differences = [-1.0, 1.0, -1.0, 1.0, -0.5, 0.5, 0.25]
    first = paired_bootstrap(differences)
    assert first == paired_bootstrap(differences)
    assert 0.5 < first.p_value <= 1.0
    low, high = first.ci95
    assert low < first.mean_difference < high


def test_one_task_gives_no_test():
    assert paired_bootstrap([]) is None
    assert paired_bootstrap([-1.0]) is None


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=2, max_size=12))
def test_swapping_the_runs_flips_the_difference_and_keeps_the_p_value(values):
    forward = paired_bootstrap(values)
    backward = paired_bootstrap([-v for v in values])
    assert backward.p_value == forward.p_value
    assert backward.mean_difference == pytest.approx(-forward.mean_difference)
    assert backward.ci95 == pytest.approx((-forward.ci95[1], -forward.ci95[0]))
    assert 0 < forward.p_value <= 1
