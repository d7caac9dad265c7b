"""The example world is honest on both backends: the reference verifies every task, doing nothing
verifies none, and every wrong solution fails for the reason its name gives."""

from __future__ import annotations

import pytest
from worldkit import SHOP

from assay.runs import open_benchmark

shop_world = open_benchmark(SHOP, build=False).world
WRONG = [
    (task_id, wrong.name)
    for task_id, task in sorted(shop_world.tasks.items())
    for wrong in task.wrong
]


def test_reference_verifies_every_task(shop_run, backend, any_shop):
    result = shop_run(backend, "reference", repeats=2)
    assert {run.task_id: run.outcome for run in result.task_runs} == dict.fromkeys(
        any_shop.tasks, "verified"
    )
    assert len(result.task_runs) == 2 * len(any_shop.tasks)
    assert result.benchmark_run.score == 1.0
    assert result.benchmark_run.verdict == "pass"
    assert result.benchmark_run.mean_reward == 1.0


def test_noop_verifies_no_task(shop_run, backend):
    result = shop_run(backend, "noop")
    assert all(run.outcome == "not_achieved" for run in result.task_runs)
    assert result.benchmark_run.outcomes["verified"] == 0


def test_there_are_enough_examples(shop):
    kinds = {check.kind for task in shop.tasks.values() for check in task.checks}
    types = {check.type for task in shop.tasks.values() for check in task.checks}
    axes = {check.axis for task in shop.tasks.values() for check in task.checks} - {None}
    assert len(shop.tasks) >= 8
    assert {"sql", "answer", "python"} <= kinds
    assert types == {"goal", "rule", "optional"}
    assert len(axes) >= 2
    assert all(task.solution and task.wrong for task in shop.tasks.values())


@pytest.mark.parametrize(("task_id", "wrong"), WRONG, ids=[f"{t}:{w}" for t, w in WRONG])
def test_every_wrong_solution_fails(shop_run, backend, task_id, wrong):
    (run,) = shop_run(backend, f"wrong:{wrong}", [task_id]).task_runs
    assert run.outcome in ("not_achieved", "rule_violated")


EXPECTED_SUMMARIES = {
    ("refund-unknown-outcome", "repeats the refund after an unknown outcome"): {
        "duplicate_effects": 1,
        "faults": 1,
    },
    ("email-after-failure", "claims success without doing it"): {
        "false_completion": True,
        "faults": 1,
    },
    ("cancel-without-pestering", "contacts the customer too often"): {
        "unnecessary_interruptions": 2
    },
    ("forward-account-closure", "calls a tool its role lacks"): {
        "rejected_attempts": 1,
        "false_completion": True,
    },
}


@pytest.mark.parametrize(
    ("key", "expected"), EXPECTED_SUMMARIES.items(), ids=[k[1] for k in EXPECTED_SUMMARIES]
)
def test_wrong_solutions_show_up_in_the_summary(shop_run, backend, key, expected):
    (run,) = shop_run(backend, f"wrong:{key[1]}", [key[0]]).task_runs
    assert {name: getattr(run.summary, name) for name in expected} == expected


def test_references_with_faults_recover(shop_run, backend):
    result = shop_run(backend, "reference", ["refund-unknown-outcome", "email-after-failure"])
    assert [run.summary.recovered for run in result.task_runs] == [True, True]
    assert result.benchmark_run.summary.recovered == 2


def test_repeats_are_identical(shop_run, backend):
    result = shop_run(backend, "reference", repeats=2)
    first, second = result.task_runs[0::2], result.task_runs[1::2]
    for one, two in zip(first, second, strict=True):
        assert one.task_id == two.task_id
        assert (one.repeat, two.repeat) == (0, 1)
        assert [c.as_json() for c in one.checks] == [c.as_json() for c in two.checks]
        assert one.summary == two.summary
        assert one.final_state_hash == two.final_state_hash
        assert one.trajectory == two.trajectory
