"""`assay validate` and withdrawn tasks, as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from trustkit import assay_here as assay
from worldkit import SHOP, copy_shop

UNFAIR = "update-address"


def test_the_example_world_validates_clean(tmp_path: Path):
    done = assay("validate", SHOP, "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["passed"] is True
    assert {task["task_id"] for task in report["tasks"]} == {
        p.stem for p in (SHOP / "tasks").glob("*.toml")
    }
    assert all(task["passed"] for task in report["tasks"])
    from assay.runs.store import open_store

    with open_store(str(tmp_path / ".assay" / "assay.db")) as store:
        assert len(store.latest_validations("shop", "1")) == len(report["tasks"])


def test_the_table_has_one_column_per_proof(tmp_path: Path):
    done = assay("validate", SHOP, "--task", "delivered-spend", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for heading in ("static", "no-op", "fails", "reference", "passes", "wrong", "replay", "live"):
        assert heading in done.stdout
    assert "skipped" in done.stdout
    assert (
        "· delivered-spend · no-op fails: 1 of 2 goal checks pass with nothing done: "
        "'The answer does not count the cancelled order'" in done.stdout
    )
    assert done.stdout.rstrip().endswith("1 of 1 tasks passed every proof")


@pytest.fixture
def unfair(tmp_path: Path) -> Path:
    world = copy_shop(tmp_path / "shop")
    task = world / "tasks" / f"{UNFAIR}.toml"
    task.write_text(
        task.read_text().replace(
            'address = "18 Mill Lane, York" } },\n  { finish',
            'address = "81 Mill Lane, York" } },\n  { finish',
        )
    )
    return world


def test_an_unfair_task_fails_with_its_reason_and_exit_1(unfair: Path, tmp_path: Path):
    done = assay("validate", unfair, cwd=tmp_path)
    assert done.returncode == 1
    assert f"✗ {UNFAIR} · reference passes: the reference solution is not achieved" in done.stdout
    assert (
        f"1 of {len(list((unfair / 'tasks').glob('*.toml')))} tasks failed a proof" in done.stdout
    )


def test_a_withdrawn_task_is_listed_left_out_of_runs_and_back_once_edited(
    unfair: Path, tmp_path: Path
):
    for other in (unfair / "tasks").glob("*.toml"):  # three tasks prove it; the shop's 16 are slow
        if other.stem not in {UNFAIR, "email-tracking", "ask-for-email"}:
            other.unlink()
    assert assay("validate", unfair, cwd=tmp_path).returncode == 1
    listed = json.loads(assay("validate", unfair, "--list", "--json", cwd=tmp_path).stdout)["tasks"]
    standings = {state["task_id"]: state["standing"] for state in listed}
    assert standings[UNFAIR] == "withdrawn"
    assert set(standings.values()) == {"validated", "withdrawn"}

    run = assay("run", unfair, "--json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stderr.splitlines()[0] == (
        "left out 1 withdrawn task (the last validation failed; --include-withdrawn runs them):"
    )
    assert run.stderr.splitlines()[1].startswith(f"  {UNFAIR}: reference: the reference solution")
    ran = {task_run["task_id"] for task_run in json.loads(run.stdout)["task_runs"]}
    assert UNFAIR not in ran
    assert "email-tracking" in ran

    forced = assay("run", unfair, "--include-withdrawn", "--json", cwd=tmp_path)
    assert forced.stderr == ""
    assert UNFAIR in {t["task_id"] for t in json.loads(forced.stdout)["task_runs"]}

    task = unfair / "tasks" / f"{UNFAIR}.toml"
    task.write_text(task.read_text().replace("81 Mill Lane", "18 Mill Lane"))
    listed = assay("validate", unfair, "--list", "--task", UNFAIR, cwd=tmp_path)
    assert listed.stdout.splitlines()[-1] == "validated 0, withdrawn 0, unvalidated 1"
    again = assay("run", unfair, "--json", cwd=tmp_path)
    # Not left out any more; run unvalidated, and said so, naming the file that changed.
    assert again.stderr.splitlines() == [
        "1 task has changed since the last validation and run unvalidated "
        "(`assay validate` proves them again):",
        f"  tasks/{UNFAIR}.toml: {UNFAIR}",
    ]
    assert UNFAIR in {t["task_id"] for t in json.loads(again.stdout)["task_runs"]}


def test_a_task_that_does_not_load_fails_static_while_the_others_validate(tmp_path: Path):
    world = copy_shop(tmp_path / "shop")
    (world / "tasks" / "typo.toml").write_text('title = "x"\nrole = "support"\ntitel = "y"\n')
    done = assay("validate", world, "--json", cwd=tmp_path)
    assert done.returncode == 1
    tasks = {task["task_id"]: task for task in json.loads(done.stdout)["tasks"]}
    assert tasks["typo"]["proofs"]["static"]["reasons"] == ["customer: required"]
    assert all(task["passed"] for name, task in tasks.items() if name != "typo")
    # Validated, the task that does not load is withdrawn: a run leaves it out and runs the rest
    # (it used to exit 2 on its load error); asked to run it anyway, the run loads strictly.
    ran = assay("run", world, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert "  typo: static: customer: required" in ran.stderr
    assert assay("run", world, "--include-withdrawn", cwd=tmp_path).returncode == 2


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("validate", "no-such-world"), "error: no-such-world: not a directory"),
        (
            ("validate", SHOP, "--task", "nope"),
            "error: --task: unknown task 'nope' in world shop (tasks: ",
        ),
        (("validate", SHOP, "--live", "robot"), "error: --agent: unknown agent 'robot'"),
        (
            ("validate", SHOP, "--list", "--task", "nope"),
            "error: --task: unknown task 'nope' in world shop",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, arguments, message):
    done = assay(*arguments, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith(message)


def test_a_live_agent_is_shown_and_does_not_fail_validation(tmp_path: Path):
    done = assay("validate", SHOP, "--task", "update-address", "--live", "noop", cwd=tmp_path)
    assert done.returncode == 0
    assert "update-address · live: noop is not achieved" in done.stdout
    assert "update-address · live: noop: not achieved, score 0.00, 1 turns" in done.stdout
