"""A run's verifier mode: task (each task's own) or separate (every task); shared is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandboxkit import make_task

from assay.formats.container_task import read_sandbox_task
from assay.formats.verifier_choice import SHARED_REFUSED, verifier_choice, with_verifier_choice
from assay.world.container.dataset import load_container_world
from assay.world.container.kind import container_kind

SEPARATE_WITH_ENVIRONMENT = """\
[verifier]
timeout_sec = 30

[verifier.environment]
workdir = "/check"
"""


def test_task_and_separate_are_the_choices() -> None:
    assert verifier_choice("task") == "task"
    assert verifier_choice("separate") == "separate"


@pytest.mark.parametrize(
    ("given", "message"),
    [("shared", SHARED_REFUSED), ("seperate", "'seperate' is not task or separate"), ("", "''")],
)
def test_anything_else_is_refused_saying_why(given: str, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        verifier_choice(given)
    assert message in str(refused.value)


def test_a_task_without_separate_config_is_verified_separately_when_the_run_says_so(
    tmp_path: Path,
) -> None:
    make_task(tmp_path, "shared-by-default", test_sh="exit 0\n")
    task = read_sandbox_task(tmp_path / "shared-by-default")
    assert task.config.verifier_mode() == "shared"
    forced = with_verifier_choice(task, "separate")
    assert forced.config.verifier_mode() == "separate"
    assert forced.config.verifier_environment() == task.config.environment  # the agent's image
    assert task.config.verifier_mode() == "shared"  # the task itself is left as it was
    assert with_verifier_choice(task, "task") is task


def test_a_task_that_asks_for_separate_keeps_its_own_environment(tmp_path: Path) -> None:
    make_task(tmp_path, "own-env", test_sh="exit 0\n", toml=SEPARATE_WITH_ENVIRONMENT)
    task = read_sandbox_task(tmp_path / "own-env")
    forced = with_verifier_choice(task, "separate")
    assert forced.config.verifier_mode() == "separate"
    assert forced.config.verifier_environment().workdir == "/check"


def test_the_loaded_world_hands_trials_the_forced_task(tmp_path: Path) -> None:
    make_task(tmp_path, "a", test_sh="exit 0\n")
    make_task(tmp_path, "b", test_sh="exit 0\n", toml='[verifier]\nenvironment_mode = "shared"\n')
    world, _ = load_container_world(tmp_path, verifier_mode="separate")
    assert world.verifier_mode == "separate"
    assert {task.config.verifier_mode() for task in container_kind(world).tasks.values()} == {
        "separate"
    }
    assert (
        container_kind(world).tasks["b"].config.verifier_mode() == "separate"
    )  # what a trial gets
    as_written, _ = load_container_world(tmp_path)
    assert as_written.verifier_mode == "task"
    assert {task.config.verifier_mode() for task in container_kind(as_written).tasks.values()} == {
        "shared"
    }
