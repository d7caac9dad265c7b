"""A task whose last validation failed is withdrawn; editing its file makes it unvalidated."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import UsageError
from assay.runs import open_benchmark, prepare
from assay.runs.store import open_store
from assay.trust.validate import save_validation, validate_world
from assay.trust.withdrawn import standing_of, withdrawn_chosen, world_states


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
