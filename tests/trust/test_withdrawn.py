"""A task whose last validation failed is withdrawn; editing any file it depends on makes it unvalidated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.errors import SpecError, UsageError
from assay.runs import open_benchmark, prepare
from assay.runs.store import open_store
from assay.trust.validate import save_validation, validate_world
from assay.trust.withdrawn import changed_chosen, standing_of, withdrawn_chosen, world_states


def test_standing_follows_the_latest_validation_of_this_very_file():
    validations = [
        {"task_id": "a", "task_hash": "h1", "passed": True, "validated_at": "2026-01-01T00:00:00Z"},
        {
            "task_id": "a",
            "task_hash": "h1",
            "passed": False,
            "validated_at": "2026-01-02T00:00:00Z",
        },
        {"task_id": "b", "task_hash": "h1", "passed": True, "validated_at": "2026-01-03T00:00:00Z"},
    ]
    assert standing_of("a", "h1", validations)[0] == "withdrawn"
    assert standing_of("a", "h2", validations) == ("unvalidated", None)
    assert standing_of("b", "h1", validations)[0] == "validated"
    assert standing_of("c", "h1", validations)[0] == "unvalidated"


@pytest.fixture
def validated(shop_copy: Path, tmp_path: Path):
    """The shop copy with update-address made unfair, every task validated once."""
    task = shop_copy / "tasks" / "update-address.toml"
    task.write_text(
        task.read_text().replace('expect = "18 Mill Lane, York"', 'expect = "4 Mill Lane, York"')
    )
    store = open_store(str(tmp_path / "validations.db"))
    save_validation(validate_world(shop_copy), store)
    return shop_copy, store


def test_a_failed_task_is_withdrawn_and_listed_with_its_reasons(validated):
    world, store = validated
    states = {state.task_id: state for state in world_states(world, store=store)}
    update = states["update-address"]
    assert update.standing == "withdrawn"
    assert update.reasons[0] == "noop: verified with nothing done: the task passes by itself"
    assert update.split == "train"
    assert {s.standing for k, s in states.items() if k != "update-address"} == {"validated"}


def test_a_run_leaves_out_withdrawn_tasks(validated):
    world, store = validated
    benchmark = open_benchmark(world)
    left_out = withdrawn_chosen(benchmark.world, (), ("train", "dev"), store)
    assert [state.task_id for state in left_out] == ["update-address"]
    planned = prepare(benchmark, "reference", leave_out={s.task_id for s in left_out})
    assert "update-address" not in {run.task_id for run in planned}
    assert len(planned) == len([t for t in benchmark.tasks.values() if t.split != "holdout"]) - 1


def test_a_withdrawn_task_outside_the_chosen_tasks_is_not_counted(validated):
    world, store = validated
    benchmark = open_benchmark(world)
    assert withdrawn_chosen(benchmark.world, ["email-tracking"], ("train", "dev"), store) == []


def test_editing_the_task_file_makes_it_unvalidated(validated):
    world, store = validated
    task = world / "tasks" / "update-address.toml"
    task.write_text(task.read_text() + "\n# fixed soon\n")
    (state,) = world_states(world, ["update-address"], store)
    assert state.standing == "unvalidated"
    assert state.reasons == []
    assert withdrawn_chosen(open_benchmark(world).world, (), ("train",), store) == []


def test_a_task_that_does_not_load_is_still_listed(shop_copy: Path, tmp_path: Path):
    store = open_store(str(tmp_path / "v.db"))
    (shop_copy / "tasks" / "broken.toml").write_text("title = \n")
    save_validation(validate_world(shop_copy, ["broken"]), store)
    (state,) = world_states(shop_copy, ["broken"], store)
    assert state.standing == "withdrawn"
    assert state.split is None
    assert state.reasons[0].startswith("static: not valid TOML")


def test_listing_an_unknown_task_is_bad_input(shop_copy: Path, tmp_path: Path):
    with pytest.raises(UsageError, match=r"^--task: unknown task 'nope' in world shop"):
        world_states(shop_copy, ["nope"], open_store(str(tmp_path / "v.db")))


def halve_store_credit(world: Path) -> None:
    """The issue's edit: a tool's behaviour changes; no task file does."""
    tools = world / "tools.py"
    text = tools.read_text()
    edited = text.replace(
        "        customer_id,\n        amount_cents,\n        reason,",
        "        customer_id,\n        amount_cents // 2,\n        reason,",
    )
    assert edited != text
    tools.write_text(edited)


@pytest.fixture
def all_validated(shop_copy: Path, tmp_path: Path):
    store = open_store(str(tmp_path / "validations.db"))
    report = validate_world(shop_copy)
    assert report.passed
    save_validation(report, store)
    return shop_copy, store


def test_editing_tools_py_makes_every_task_unvalidated(all_validated):
    world, store = all_validated
    halve_store_credit(world)
    states = world_states(world, store=store)
    assert {state.standing for state in states} == {"unvalidated"}
    assert {tuple(state.changed) for state in states} == {("tools.py",)}
    benchmark = open_benchmark(world)
    changed = changed_chosen(benchmark.world, (), ("train", "dev"), store)
    assert "goodwill-credit" in {state.task_id for state in changed}


def test_a_harmless_edit_then_validate_is_validated_again(all_validated):
    world, store = all_validated
    schema = world / "schema.sql"
    schema.write_text(schema.read_text() + "\n-- a comment\n")
    (state,) = world_states(world, ["update-address"], store)
    assert (state.standing, state.changed) == ("unvalidated", ["schema.sql"])
    save_validation(validate_world(world, ["update-address"]), store)
    (state,) = world_states(world, ["update-address"], store)
    assert (state.standing, state.changed) == ("validated", [])


def test_the_cli_says_which_files_changed(shop_copy: Path, tmp_path: Path):
    """The issue, end to end: validated, tools.py edited, a reference run scores 0.950 (pass)."""
    from trustkit import assay_here

    validated = assay_here("validate", shop_copy, cwd=tmp_path)
    assert validated.returncode == 0, validated.stdout
    halve_store_credit(shop_copy)
    listed = assay_here("validate", shop_copy, "--list", "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    states = json.loads(listed.stdout)["tasks"]
    assert {(s["standing"], tuple(s["changed"])) for s in states} == {
        ("unvalidated", ("tools.py",))
    }
    table = assay_here("validate", shop_copy, "--list", cwd=tmp_path)
    assert "validated 0, withdrawn 0, unvalidated 16" in table.stdout
    assert "changed since validated: tools.py" in table.stdout
    ran = assay_here("run", shop_copy, "--workers", "1", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert "score 0.950 (pass)" in ran.stdout  # what the issue saw, now flagged:
    assert "15 tasks have changed since the last validation and run unvalidated" in ran.stderr
    assert "tools.py: address-correction," in ran.stderr
    # Validating again (in a new process, which imports the edited tools.py) ends the doubt:
    # the two tasks the edit broke are withdrawn and left out, the rest are validated.
    again = assay_here("validate", shop_copy, cwd=tmp_path)
    assert again.returncode == 1
    listed = assay_here("validate", shop_copy, "--list", "--json", cwd=tmp_path)
    states = {s["task_id"]: s for s in json.loads(listed.stdout)["tasks"]}
    broken = {"cancel-then-credit", "goodwill-credit"}
    assert {k for k, s in states.items() if s["standing"] == "withdrawn"} == broken
    assert {s["standing"] for k, s in states.items() if k not in broken} == {"validated"}
    assert all(s["changed"] == [] for s in states.values())
    rerun = assay_here("run", shop_copy, "--workers", "1", cwd=tmp_path)
    assert "left out 2 withdrawn tasks" in rerun.stderr
    assert "changed since the last validation" not in rerun.stderr
    assert "score 1.000 (pass)" in rerun.stdout


MISSING_TABLE_TASK = """\
title = "Counts reviews the shop does not keep"
role = "support"

[customer]
request = "How many reviews do I have?"

[[checks]]
name = "one review"
sql = "SELECT count(*) FROM reviews"
expect = 1
"""


@pytest.fixture
def withdrawn_unloadable(shop_copy: Path, tmp_path: Path):
    """The shop (three tasks) with a task whose check names a missing table, validated: withdrawn."""
    for other in (shop_copy / "tasks").glob("*.toml"):
        if other.stem not in {"email-tracking", "ask-for-email", "update-address"}:
            other.unlink()
    (shop_copy / "tasks" / "reviews.toml").write_text(MISSING_TABLE_TASK)
    from trustkit import assay_here

    assert assay_here("validate", shop_copy, "--task", "reviews", cwd=tmp_path).returncode == 1
    return shop_copy, open_store(str(tmp_path / ".assay" / "assay.db"))


def test_a_withdrawn_task_that_does_not_load_never_blocks_the_run(withdrawn_unloadable, tmp_path):
    """The issue: `assay run WORLD` exited 2 on the withdrawn task's load error; it is left out."""
    from trustkit import assay_here

    world, _ = withdrawn_unloadable
    ran = assay_here("run", world, "--workers", "2", "--json", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert "left out 1 withdrawn task" in ran.stderr
    assert "  reviews: static: checks[0].sql: unknown table 'reviews'" in ran.stderr
    ran_ids = {task_run["task_id"] for task_run in json.loads(ran.stdout)["task_runs"]}
    assert ran_ids == {"email-tracking", "ask-for-email", "update-address"}
    run_id = json.loads(ran.stdout)["benchmark_run"]["id"]
    resumed = assay_here("run", "--resume", run_id, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    named = assay_here("run", world, "--task", "reviews", "--task", "email-tracking", cwd=tmp_path)
    assert named.returncode == 0, named.stderr
    forced = assay_here("run", world, "--include-withdrawn", cwd=tmp_path)
    assert forced.returncode == 2
    assert "checks[0].sql: unknown table 'reviews'" in forced.stderr
    listed = assay_here("validate", world, "--list", "--json", cwd=tmp_path)
    standings = {s["task_id"]: s["standing"] for s in json.loads(listed.stdout)["tasks"]}
    assert standings["reviews"] == "withdrawn"  # kept in the record, out of the way


def test_a_served_world_leaves_out_its_withdrawn_tasks(withdrawn_unloadable):
    from assay.served.catalog import Catalog

    world, store = withdrawn_unloadable
    with pytest.raises(SpecError, match="unknown table 'reviews'"):
        Catalog([world])
    catalog = Catalog([world], store)
    (benchmark,) = catalog.benchmarks.values()
    assert sorted(benchmark.tasks) == ["ask-for-email", "email-tracking", "update-address"]
