"""worlds/shop runs on PostgreSQL with the same results as on SQLite, task by task."""

from __future__ import annotations

import pytest
from comparekit import comparable_result

from assay.runs import prepare, run_benchmark


def _runs(benchmark) -> list[tuple[str, tuple[str, ...], int]]:
    """Every solution of every task: the reference twice, doing nothing, each wrong one."""
    wrong = [
        (f"wrong:{wrong.name}", (task_id,), 1)
        for task_id, task in sorted(benchmark.tasks.items())
        for wrong in task.wrong
    ]
    return [("reference", (), 2), ("noop", (), 1), *wrong]


@pytest.fixture(scope="module")
def results(shop, shop_run) -> dict[tuple[str, str, int], tuple[dict, dict]]:
    """(task, agent, repeat) → its task run on SQLite and on PostgreSQL (shared with test_shop)."""
    paired = {}
    for agent, task_ids, repeats in _runs(shop):
        sqlite = shop_run("sqlite", agent, task_ids, repeats).task_runs
        postgres = shop_run("postgresql", agent, task_ids, repeats).task_runs
        assert len(sqlite) == len(postgres)
        for one, two in zip(sqlite, postgres, strict=True):
            paired[(one.task_id, agent, one.repeat)] = (
                comparable_result(one),
                comparable_result(two),
            )
    return paired


def test_every_solution_scores_the_same_on_both_backends(results) -> None:
    differ = [key for key, (sqlite, postgres) in results.items() if sqlite != postgres]
    assert differ == []


def test_the_comparison_covers_every_outcome(results, shop) -> None:
    outcomes = {sqlite["outcome"] for sqlite, _ in results.values()}
    assert outcomes == {"verified", "not_achieved", "rule_violated"}
    references = [pair for (_, agent, _), pair in results.items() if agent == "reference"]
    assert len(references) == 2 * len(shop.tasks)
    assert all(postgres["outcome"] == "verified" for _, postgres in references)
    assert all(postgres["checks"] for _, postgres in references)


def test_final_states_differ_between_solutions(results) -> None:
    """The hash says something: a reference and a noop run leave different states."""
    hashes = {key: postgres["final_state_hash"] for key, (_, postgres) in results.items()}
    for task_id in {task_id for task_id, _, _ in hashes}:
        assert hashes[(task_id, "reference", 0)] != hashes[(task_id, "noop", 0)]


def test_a_copy_the_server_refuses_is_not_scored(tmp_path, postgres_url: str, shop) -> None:
    """The world side failed: the task run is left out of every mean, not counted as zero."""
    import shutil

    from assay.runs import open_benchmark

    root = tmp_path / "shop"
    shutil.copytree(shop.world.root, root, ignore=shutil.ignore_patterns(".assay"))
    with (root / "seed.sql").open("a") as seed:
        seed.write("\n-- a copy of its own, so that dropping its template harms no other test\n")
    benchmark = open_benchmark(root, world_db=postgres_url)
    benchmark.world.backend.server.drop_database(benchmark.world.snapshot.name)
    outcome = run_benchmark(
        benchmark, "reference", prepare(benchmark, "reference", ["update-address"])
    )
    [result] = outcome.task_runs
    assert result.outcome == "not_scored" and result.error is not None
    assert result.error.side == "world"
    assert "the world could not be reset: CREATE DATABASE failed: " in result.error.message


def test_both_backends_record_the_rows_the_reference_changed(results) -> None:
    sqlite, postgres = results[("refund-double-charge", "reference", 0)]
    assert sqlite["changes"] == postgres["changes"]
    (refunds,) = postgres["changes"]["tables"]
    assert refunds["table"] == "refunds"
    assert [row["charge_id"] for row in refunds["added"]] == ["ch_1042b"]
    assert [r["operation"] for r in postgres["changes"]["requests"]] == ["refund"]
