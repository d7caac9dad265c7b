"""pass@k and pass^k against hand-worked values; k chosen by the fewest scored repeats."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rowmaker import repeats

from assay.runs.headline import readable_k
from assay.runs.passk import k_values, pass_at, pass_hat, pass_k, task_counts


@pytest.mark.parametrize("fewest", [0, 1, 2, 3, 7, 33])
def test_k_is_every_value_from_one_to_the_fewest_repeats(fewest):
    assert k_values(fewest) == list(range(1, fewest + 1))


def test_three_repeats_give_pass_hat_three_the_reliable_every_time_figure():
    # a: 3 of 3 verified, b: 2 of 3: pass^3 is 1 for a and 0 for b.
    at, hat = pass_k(list(task_counts(repeats("a", "vvv") + repeats("b", "vvn")).values()))
    assert list(hat) == ["1", "2", "3"]
    assert hat["3"] == pytest.approx(0.5)
    assert hat["2"] == pytest.approx((1.0 + 1 / 3) / 2)
    assert at["3"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("ks", "shown"),
    [
        ([], []),
        ([1, 2, 3], ["1", "2", "3"]),
        (range(1, 8), ["1", "2", "4", "5", "7"]),
        (range(1, 17), ["1", "2", "4", "5", "8", "10", "15", "16"]),
        (range(1, 34), ["1", "2", "4", "5", "8", "10", "15", "16", "20", "25", "30", "32", "33"]),
    ],
)
def test_a_table_shows_powers_of_two_multiples_of_five_and_the_last_k(ks, shown):
    assert readable_k([str(k) for k in ks]) == shown


# n = 5 runs, c = 2 verified: C(3,k)/C(5,k) is 3/5, 3/10, 1/10, 0, 0 for k = 1..5.
@pytest.mark.parametrize(
    ("n", "c", "k", "at", "hat"),
    [
        (5, 2, 1, 1 - 3 / 5, 2 / 5),
        (5, 2, 2, 1 - 3 / 10, 1 / 10),
        (5, 2, 3, 1 - 1 / 10, 0.0),
        (5, 2, 4, 1.0, 0.0),
        (5, 2, 5, 1.0, 0.0),
        (5, 0, 1, 0.0, 0.0),
        (5, 5, 5, 1.0, 1.0),
        (10, 7, 4, 1 - 0 / 210, 35 / 210),
        (10, 3, 2, 1 - 21 / 45, 3 / 45),
        (1, 1, 1, 1.0, 1.0),
    ],
)
def test_unbiased_estimators_for_one_task(n, c, k, at, hat):
    assert pass_at(n, c, k) == pytest.approx(at)
    assert pass_hat(n, c, k) == pytest.approx(hat)


def test_figures_are_the_mean_over_tasks_keyed_by_k_as_text():
    # task a: n=5 c=2; task b: n=5 c=5.
    rows = repeats("a", "vvnnr") + repeats("b", "vvvvv")
    at, hat = pass_k(list(task_counts(rows).values()))
    assert list(at) == ["1", "2", "3", "4", "5"]
    assert at["1"] == pytest.approx((0.4 + 1.0) / 2)
    assert at["2"] == pytest.approx((0.7 + 1.0) / 2)
    assert at["4"] == pytest.approx(1.0)
    assert hat["1"] == pytest.approx((0.4 + 1.0) / 2)
    assert hat["2"] == pytest.approx((0.1 + 1.0) / 2)
    assert hat["4"] == pytest.approx(0.5)
    assert hat["5"] == pytest.approx(0.5)


def test_not_scored_runs_leave_n_and_the_k_range():
    # a: 5 runs, one not scored → n=4, c=2; b: 6 runs, n=6, c=3. k up to 4.
    rows = repeats("a", "vvnnx") + repeats("b", "vvvnnn")
    counts = task_counts(rows)
    assert counts == {"a": (4, 2), "b": (6, 3)}
    at, hat = pass_k(list(counts.values()))
    assert list(at) == ["1", "2", "3", "4"]
    assert at["1"] == pytest.approx((2 / 4 + 3 / 6) / 2)
    assert at["2"] == pytest.approx(((1 - 1 / 6) + (1 - 3 / 15)) / 2)
    assert hat["2"] == pytest.approx((1 / 6 + 3 / 15) / 2)


def test_a_task_with_no_scored_run_is_left_out():
    rows = repeats("a", "vv") + repeats("b", "xxx")
    assert task_counts(rows) == {"a": (2, 2)}
    at, _ = pass_k(list(task_counts(rows).values()))
    assert at == {"1": 1.0, "2": 1.0}


def test_nothing_scored_gives_empty_figures():
    assert pass_k(list(task_counts(repeats("a", "xx")).values())) == ({}, {})


def test_rule_violated_is_not_a_success():
    assert task_counts(repeats("a", "rrv")) == {"a": (3, 1)}


@given(st.lists(st.tuples(st.integers(1, 40), st.integers(0, 40)), min_size=1, max_size=20))
def test_the_figures_average_the_exact_estimators(pairs):
    counts = [(n, min(c, n)) for n, c in pairs]
    at, hat = pass_k(counts)
    for k in k_values(min(n for n, _ in counts)):
        exact_at = math.fsum(pass_at(n, c, k) for n, c in counts) / len(counts)
        exact_hat = math.fsum(pass_hat(n, c, k) for n, c in counts) / len(counts)
        assert at[str(k)] == pytest.approx(exact_at, abs=1e-12)
        assert hat[str(k)] == pytest.approx(exact_hat, abs=1e-12)
        assert 0.0 <= hat[str(k)] <= at[str(k)] + 1e-12 <= 1.0 + 1e-12
