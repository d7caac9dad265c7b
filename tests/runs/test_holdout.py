"""Holdout tasks run only when their split is asked for, and always in scored mode."""

from __future__ import annotations

import pytest

from assay.errors import UsageError
from assay.runs import prepare, run_benchmark, select_tasks

HOLDOUT = "damaged-order-refund"


@pytest.fixture
def benchmark(shop):
    return shop


def test_the_example_world_holds_a_holdout_task(benchmark):
    assert benchmark.tasks[HOLDOUT].split == "holdout"


def test_default_runs_leave_holdout_out(benchmark):
    chosen = {task.id for task in select_tasks(benchmark.world)}
    assert HOLDOUT not in chosen
    assert chosen == {t.id for t in benchmark.tasks.values() if t.split in ("train", "dev")}


def test_holdout_runs_with_its_split(benchmark):
    assert [task.id for task in select_tasks(benchmark.world, (), ["holdout"])] == [HOLDOUT]


def test_naming_a_holdout_task_without_its_split_is_refused(benchmark):
    with pytest.raises(
        UsageError,
        match=f"^--task: {HOLDOUT} is a holdout task; it runs only with --split holdout$",
    ):
        select_tasks(benchmark.world, [HOLDOUT])
    assert [t.id for t in select_tasks(benchmark.world, [HOLDOUT], ["holdout"])] == [HOLDOUT]


def test_a_holdout_run_is_scored_and_keeps_every_detail_for_storage(benchmark):
    planned = prepare(benchmark, "wrong:refunds half", (), ["holdout"])
    outcome = run_benchmark(benchmark, "wrong:refunds half", planned)
    assert outcome.benchmark_run.scored_run is True
    (full,) = outcome.task_runs
    assert all(check.details and check.evidence for check in full.checks)
    (shown,) = outcome.redacted().task_runs
    assert all(check.details is None and check.evidence is None for check in shown.checks)
    assert (shown.outcome, shown.reward, shown.score, shown.verdict, shown.axes) == (
        full.outcome,
        full.reward,
        full.score,
        full.verdict,
        full.axes,
    )
    assert [check.passed for check in shown.checks] == [check.passed for check in full.checks]


def test_scored_mode_can_be_asked_for_on_any_split(benchmark):
    planned = prepare(benchmark, "reference", ["update-address"])
    outcome = run_benchmark(benchmark, "reference", planned, scored=True)
    assert outcome.benchmark_run.scored_run is True
    assert outcome.redacted().task_runs[0].checks[0].details is None


def test_train_and_dev_runs_are_not_scored_by_default(benchmark):
    planned = prepare(benchmark, "reference", ["update-address"])
    outcome = run_benchmark(benchmark, "reference", planned)
    assert outcome.benchmark_run.scored_run is False
    assert outcome.redacted() is outcome
