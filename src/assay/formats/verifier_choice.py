"""A run's choice of verifier mode for its container-format tasks: each task's own, or separate for
every task.

Shared verification runs the test script in the sandbox the agent leaves, so a test that runs a
binary or library the agent could replace can be fooled, in any runtime. Separate verification
starts a fresh sandbox from the image before the agent and puts back only the declared artifacts:
the mode for a leaderboard. Forcing shared on a task that asks for separate would weaken it, so a
run cannot choose it.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Literal, cast

if TYPE_CHECKING:
    from assay.formats.container_task import (
        ContainerTask,  # not at run time: a database world's runs read this
    )

VerifierChoice = Literal["task", "separate"]
CHOICES: tuple[VerifierChoice, ...] = ("task", "separate")
SHARED_REFUSED = (
    "shared is refused: it would weaken every task that asks for separate verification; "
    "choose task (each task's own mode) or separate"
)


def verifier_choice(value: str) -> VerifierChoice:
    """The choice `value` names; ValueError saying why for anything else."""
    if value in CHOICES:
        return cast(VerifierChoice, value)
    if value == "shared":
        raise ValueError(SHARED_REFUSED)
    raise ValueError(f"{value!r} is not task or separate")


def with_verifier_choice(task: ContainerTask, choice: VerifierChoice) -> ContainerTask:
    """The task as a run with `choice` runs it: separate makes its verifier separate, whatever its
    task.toml says (its [verifier.environment], if any, still says which environment)."""
    if choice == "task" or task.config.verifier_mode() == "separate":
        return task
    verifier = task.config.verifier.model_copy(update={"environment_mode": "separate"})
    config = task.config.model_copy(update={"verifier": verifier})
    return dataclasses.replace(task, config=config)
