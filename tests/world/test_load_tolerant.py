"""Strict loading stops at the first bad task; tolerant loading keeps the others and says why."""

from __future__ import annotations

from pathlib import Path

import pytest
from worldkit import copy_shop

from assay.errors import SpecError
from assay.world.load import load_world, load_world_tolerant


@pytest.fixture
def world(tmp_path: Path) -> Path:
    root = copy_shop(tmp_path / "shop")
    task = root / "tasks" / "update-address.toml"
    task.write_text(task.read_text().replace('role = "support"', 'role = "supprt"'))
    (root / "tasks" / "not-toml.toml").write_text("title = \n")
    return root


def test_strict_loading_raises_on_the_first_bad_task(world: Path):
    with pytest.raises(SpecError) as raised:
        load_world(world)
    assert raised.value.file.endswith("tasks/not-toml.toml")
    assert raised.value.message.startswith("not valid TOML")


def test_tolerant_loading_keeps_every_task_that_loads(world: Path):
    loaded, rejected = load_world_tolerant(world)
    assert sorted(rejected) == ["not-toml", "update-address"]
    assert rejected["update-address"].field == "role"
    assert rejected["update-address"].message.startswith("unknown role 'supprt' (known: ")
    assert "update-address" not in loaded.tasks
    assert "refund-double-charge" in loaded.tasks
    assert len(loaded.tasks) == len(list((world / "tasks").glob("*.toml"))) - 2


def test_a_broken_world_file_still_raises_when_tolerant(world: Path):
    (world / "world.toml").write_text('name = "shop"\n')
    with pytest.raises(SpecError, match="version: required"):
        load_world_tolerant(world)


def test_left_out_tasks_are_never_read(world: Path):
    loaded = load_world(world, left_out={"not-toml", "update-address"})
    assert "update-address" not in loaded.tasks and "refund-double-charge" in loaded.tasks
    assert loaded.left_out == {"not-toml", "update-address"}


def test_a_container_dataset_leaves_out_its_tasks_too(tmp_path: Path):
    from sandboxkit import make_task

    make_task(tmp_path / "set", "good", test_sh="echo 1 > /logs/verifier/reward.txt")
    (tmp_path / "set" / "broken").mkdir()
    (tmp_path / "set" / "broken" / "task.toml").write_text("version = \n")
    with pytest.raises(SpecError):
        load_world(tmp_path / "set")
    loaded = load_world(tmp_path / "set", left_out={"broken"})
    assert list(loaded.tasks) == ["good"] and loaded.left_out == {"broken"}
