"""Which tasks an RL environment draws its task runs from: named ones, or a split's."""

from __future__ import annotations

from collections.abc import Sequence

from assay.errors import UsageError
from assay.formats.task import TaskSpec
from assay.runs.plan import select_tasks
from assay.trust.store import ValidationStore
from assay.trust.withdrawn import withdrawn_among
from assay.world.live import World

SPLITS = ("train", "dev", "holdout")
DEFAULT_SPLITS = ("train",)  # an environment to learn in draws from the training split only


def choose_tasks(
    world: World,
    task_ids: Sequence[str] = (),
    splits: Sequence[str] = (),
    *,
    include_withdrawn: bool = False,
    store: ValidationStore | None = None,
    names: tuple[str, str] = ("task", "split"),
) -> list[TaskSpec]:
    """The named tasks, else every task of `splits` (default: train), less withdrawn ones.

    `names` are the parameters to name in errors (`--task`, `--split` on the command line);
    `store` holds the validations that withdraw tasks (default: the records store).
    """
    task_name, split_name = names
    unknown_split = [split for split in splits if split not in SPLITS]
    if unknown_split:
        raise UsageError(
            f"{split_name}: unknown split {unknown_split[0]!r}; use train, dev or holdout"
        )
    splits = tuple(splits) or DEFAULT_SPLITS
    unknown = [task_id for task_id in task_ids if task_id not in world.tasks]
    if unknown:
        known = ", ".join(sorted(world.tasks)) or "none"
        raise UsageError(
            f"{task_name}: unknown task {unknown[0]!r} in world {world.name} (tasks: {known})"
        )
    held = [t for t in task_ids if world.tasks[t].split == "holdout" and "holdout" not in splits]
    if held:
        raise UsageError(
            f"{task_name}: {held[0]} is a holdout task; it runs only when {split_name} holdout is given"
        )
    chosen = select_tasks(world, task_ids, splits)
    if not chosen:
        raise UsageError(f"{split_name}: world {world.name} has no task in {', '.join(splits)}")
    if include_withdrawn:
        return chosen
    withdrawn = {state.task_id for state in withdrawn_among(world, chosen, store)}
    kept = [task for task in chosen if task.id not in withdrawn]
    if not kept:
        raise UsageError(
            f"{task_name if task_ids else split_name}: every chosen task is withdrawn (its last "
            f"validation failed): {', '.join(sorted(withdrawn))}"
        )
    return kept
