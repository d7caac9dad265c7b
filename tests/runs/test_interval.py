"""The bootstrap interval: over tasks, repeats together, seeded, not-scored runs left out."""

from __future__ import annotations

import random

import pytest
from rowmaker import repeats, row

from assay.runs.interval import RESAMPLES, SEED, ci95, resamples_for, task_sums


def test_repeats_of_a_task_are_drawn_together():
    # Two tasks of ten runs each, one always verified, one never: a draw of tasks can be
    # both good, both bad or mixed, so the interval spans [0, 1]. Drawing runs one by one
    # would give a narrow interval around 0.5 instead.
    rows = repeats("good", "v" * 10) + repeats("bad", "n" * 10)
    assert ci95(rows) == (0.0, 1.0)


def test_the_same_rows_give_the_same_interval_in_any_order():
    generator = random.Random(7)
    rows = [
        row(f"t{task}", "verified", generator.random(), repeat=repeat)
        for task in range(40)
        for repeat in range(3)
    ]
    first = ci95(rows)
    shuffled = rows[:]
    generator.shuffle(shuffled)
    assert ci95(shuffled) == first
    assert ci95(list(rows)) == first


def test_the_interval_holds_the_score_and_lies_within_the_scores():
    generator = random.Random(3)
    rows = [row(f"t{task}", "verified", generator.random()) for task in range(200)]
    low, high = ci95(rows)
    mean = sum(r.score for r in rows) / len(rows)
    assert 0.0 < low < mean < high < 1.0


def test_one_task_gives_no_interval():
    assert ci95(repeats("only", "vvnn")) is None
    assert ci95([]) is None


def test_identical_tasks_give_a_point():
    rows = repeats("a", "vn") + repeats("b", "nv") + repeats("c", "vn")
    assert ci95(rows) == (0.5, 0.5)


def test_not_scored_runs_are_left_out_of_sums_and_counts():
    rows = repeats("a", "vvx") + repeats("b", "xxx") + repeats("c", "nv")
    sums, counts = task_sums(rows)
    assert (sums, counts) == ([2.0, 1.0], [2, 2])


def test_uneven_repeats_weigh_each_run_once():
    # a: 1 run scoring 1; b: 3 runs scoring 0. The run score is 1/4, not the mean of task means.
    rows = repeats("a", "v") + repeats("b", "nnn")
    sums, counts = task_sums(rows)
    assert (sum(sums) / sum(counts)) == pytest.approx(0.25)
    assert ci95(rows) == (0.0, 1.0)


@pytest.mark.parametrize("repeats_of", [lambda task: 3, lambda task: 1 + task % 4])
def test_the_interval_is_scipy_s_percentile_bootstrap_over_tasks(repeats_of):
    # The same draws as scipy.stats.bootstrap with paired task sums and counts, so the
    # interval is the library's, computed in batches that bound memory.
    import numpy as np
    from scipy.stats import bootstrap

    generator = random.Random(11)
    rows = [
        row(f"t{task:03}", "verified", generator.random(), repeat=repeat)
        for task in range(60)
        for repeat in range(repeats_of(task))
    ]
    sums, counts = task_sums(rows)
    reference = bootstrap(
        (np.array(sums), np.array(counts)),
        lambda s, c, axis=-1: s.sum(axis=axis) / c.sum(axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=RESAMPLES,
        method="percentile",
        rng=np.random.default_rng(SEED),
    ).confidence_interval
    assert ci95(rows) == pytest.approx((reference.low, reference.high), rel=1e-12)


@pytest.mark.parametrize(
    ("tasks", "resamples"),
    [(2, 2000), (50_000, 2000), (50_001, 1999), (80_000, 1250), (100_000, 1000), (10**6, 1000)],
)
def test_resamples_drop_towards_1000_only_past_50000_tasks(tasks, resamples):
    assert resamples_for(tasks) == resamples
