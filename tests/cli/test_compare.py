"""`assay compare`: per-task changes of two stored runs, the paired test, and its exit codes."""

from __future__ import annotations

import json

from worldkit import SHOP

from assay.runs.store import open_store

TASKS = ("refund-double-charge", "update-address", "cancel-unshipped-order")


def recorded(assay, agent: str, repeats: int = 1) -> str:
    options = [item for task in TASKS for item in ("--task", task)]
    ran = assay("run", SHOP, "--agent", agent, *options, "--repeats", str(repeats), "--json")
    assert ran.code == 0, ran.err
    return json.loads(ran.out)["benchmark_run"]["id"]


def test_compare_lists_regressions_and_fails_on_a_significant_one(assay):
    good, bad = recorded(assay, "reference", repeats=2), recorded(assay, "noop")
    ran = assay("compare", good, bad, "--json")
    assert ran.code == 0, ran.err
    compared = json.loads(ran.out)
    assert (compared["a"]["id"], compared["b"]["id"]) == (good, bad)
    assert compared["a"]["score"] == 1.0
    assert {task["task_id"] for task in compared["tasks"]} == set(TASKS)
    for task in compared["tasks"]:
        assert task["change"] == "regressed"
        assert task["a"] == {"scored": 2, "verified": 2, "pass_rate": 1.0, "mean_score": 1.0}
        assert task["b"]["scored"] == 1 and task["b"]["verified"] == 0
        assert task["pass_rate_change"] == -1.0
        assert task["score_change"] == task["b"]["mean_score"] - 1.0
    changes = [task["score_change"] for task in compared["tasks"]]
    assert changes == sorted(changes)  # the worst first
    test = compared["test"]
    assert test["tasks"] == 3 and test["p_value"] < 0.05 and test["seed"] == 20260302
    assert test["method"].startswith("paired bootstrap")
    assert compared["regression"] is True

    assert assay("compare", good, bad, "--fail-on-regression").code == 1
    assert assay("compare", bad, good, "--fail-on-regression").code == 0
    table = assay("compare", good[:9], bad)
    assert table.code == 0
    assert "refund-double-charge" in table.out and "regressed" in table.out
    assert "significant regression" in table.out
    assert "p = 0.0001" in table.out


def test_the_same_agent_twice_shows_no_change(assay):
    first, second = recorded(assay, "reference"), recorded(assay, "reference")
    compared = json.loads(assay("compare", first, second, "--json").out)
    assert {task["change"] for task in compared["tasks"]} == {"unchanged"}
    assert compared["test"]["p_value"] == 1.0
    assert compared["regression"] is False
    assert assay("compare", first, second, "--fail-on-regression").code == 0


def test_bad_runs_are_one_line_and_exit_2(assay):
    run = recorded(assay, "reference")
    missing = assay("compare", run, "br_nope")
    assert missing.code == 2
    assert (
        missing.err.strip()
        == "error: RUN_B: no benchmark run 'br_nope' in sqlite:///.assay/assay.db"
    )
    assert assay("compare", "br_nope", run).err.startswith("error: RUN_A: no benchmark run")
    with open_store() as store:
        store.create_benchmark_run(
            "br_elsewhere",
            world="clinic",
            world_version="1",
            world_path="/nowhere",
            agent="noop",
            repeats=1,
            planned=[],
            splits={},
        )
    other = assay("compare", run, "br_elsewhere")
    assert other.code == 2
    assert other.err.strip() == (
        f"error: RUN_B: run br_elsewhere is of world clinic, not shop like run {run}"
    )
