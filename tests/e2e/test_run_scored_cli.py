"""`assay run` with holdout tasks and scored mode: the numbers are shown, the details are not."""

from __future__ import annotations

import json
from pathlib import Path

from trustkit import assay_here as assay
from worldkit import SHOP

HOLDOUT = "damaged-order-refund"


def test_holdout_runs_only_with_its_split_and_always_scored(tmp_path: Path):
    default = json.loads(assay("run", SHOP, "--json", cwd=tmp_path).stdout)
    assert HOLDOUT not in {run["task_id"] for run in default["task_runs"]}
    assert default["benchmark_run"]["scored_run"] is False

    done = assay(
        "run", SHOP, "--split", "holdout", "--agent", "wrong:refunds half", "--json", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["benchmark_run"]["scored_run"] is True
    (task_run,) = outcome["task_runs"]
    assert (task_run["task_id"], task_run["outcome"], task_run["reward"]) == (
        HOLDOUT,
        "not_achieved",
        0,
    )
    assert task_run["score"] is not None and task_run["verdict"] == "partial"
    assert task_run["axes"]
    assert all(
        check["details"] is None and check["evidence"] is None for check in task_run["checks"]
    )


def test_the_scored_table_holds_no_details(tmp_path: Path):
    done = assay("run", SHOP, "--split", "holdout", "--agent", "wrong:refunds half", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "scored (check details withheld)" in done.stdout
    assert "✗ One card refund of the whole charge for F-6001" in done.stdout
    assert "the query returned" not in done.stdout


def test_naming_a_holdout_task_without_its_split_is_refused(tmp_path: Path):
    done = assay("run", SHOP, "--task", HOLDOUT, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        f"error: --task: {HOLDOUT} is a holdout task; it runs only with --split holdout\n"
    )


def test_scored_mode_on_request(tmp_path: Path):
    plain = json.loads(
        assay("run", SHOP, "--task", "update-address", "--json", cwd=tmp_path).stdout
    )
    assert plain["task_runs"][0]["checks"][0]["details"]
    scored = json.loads(
        assay("run", SHOP, "--task", "update-address", "--scored", "--json", cwd=tmp_path).stdout
    )
    assert scored["benchmark_run"]["scored_run"] is True
    check = scored["task_runs"][0]["checks"][0]
    assert (check["details"], check["evidence"], check["passed"]) == (None, None, True)


def test_fail_under_exits_1(tmp_path: Path):
    done = assay("run", SHOP, "--agent", "noop", "--fail-under", "0.5", "--json", cwd=tmp_path)
    assert done.returncode == 1
