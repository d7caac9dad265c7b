"""Which task runs a benchmark run holds: tasks chosen by id or split, times repeats."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from assay.errors import UsageError
from assay.formats.task import TaskSpec
from assay.world.live import World

DEFAULT_SPLITS = ("train", "dev")


@dataclass(frozen=True)
class PlannedRun:
    id: str
    task_id: str
    repeat: int


def new_id(prefix: str) -> str:
    """A random id: the prefix and 16 hex digits (`secrets`, several times cheaper than uuid4)."""
    return f"{prefix}_{secrets.token_hex(8)}"


def select_tasks(
    world: World, task_ids: Sequence[str] = (), splits: Iterable[str] = DEFAULT_SPLITS
) -> list[TaskSpec]:
    """Named tasks in the order given, else every task of the splits, sorted by id.

    A holdout task runs only when its split is asked for, even when named.
    """
    if task_ids:
        unknown = [task_id for task_id in task_ids if task_id not in world.tasks]
        if unknown:
            known = ", ".join(sorted(world.tasks)) or "none"
            raise UsageError(
                f"--task: unknown task {unknown[0]!r} in world {world.name} (tasks: {known})"
            )
        held = [
            t for t in task_ids if world.tasks[t].split == "holdout" and "holdout" not in splits
        ]
        if held:
            raise UsageError(
                f"--task: {held[0]} is a holdout task; it runs only with --split holdout"
            )
        return [world.tasks[task_id] for task_id in dict.fromkeys(task_ids)]
    wanted = set(splits)
    return [task for _, task in sorted(world.tasks.items()) if task.split in wanted]


def plan(tasks: Sequence[TaskSpec], repeats: int) -> list[PlannedRun]:
    if repeats < 1:
        raise UsageError("--repeats: must be at least 1")
    return [
        PlannedRun(new_id("tr"), task.id, repeat) for task in tasks for repeat in range(repeats)
    ]
