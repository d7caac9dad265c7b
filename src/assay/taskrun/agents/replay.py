"""`replay:<file>` and `replay:<directory>`: saved trajectories acted out again, each for its task.

A file holds one task run's trajectory (as `assay run --save-trajectories` writes it, or the bare
trajectory); a directory holds one per file. The trajectories of one task are replayed in the
order of their repeats, so a directory saved from a run of several repeats replays each of them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.errors import UsageError
from assay.formats.task import TaskSpec
from assay.taskrun.agents.names import AgentName
from assay.taskrun.agents.scripted import ActionsAgent


@dataclass(frozen=True)
class Saved:
    """One saved trajectory: whose task, which repeat if it says, and the actions it took."""

    path: Path
    task_id: str
    repeat: int | None
    actions: list[dict[str, Any]]


class Replays:
    """An agent factory: the saved trajectories of `path`, each replayed for its own task."""

    def __init__(self, path: Path):
        self.path = path
        self.by_task = replay_source(path)

    def counts(self) -> dict[str, int]:
        """How many trajectories each task has: the tasks to run, and their repeats."""
        return {task_id: len(saved) for task_id, saved in self.by_task.items()}

    def check(self, task: TaskSpec) -> None:
        """UsageError when nothing here replays `task`."""
        if task.id not in self.by_task:
            held = ", ".join(sorted(self.by_task))
            raise UsageError(f"--agent: {self.path} replays task {held}, not {task.id}")

    def __call__(self, task: TaskSpec, repeat: int = 0) -> ActionsAgent:
        self.check(task)
        saved = self.by_task[task.id]
        if repeat >= len(saved):
            raise UsageError(
                f"--agent: {self.path} holds {len(saved)} trajectories of task {task.id}, "
                f"not one for repeat {repeat + 1}"
            )
        return ActionsAgent(saved[repeat].actions)


def replay_source(path: Path) -> dict[str, list[Saved]]:
    """The trajectories of a file or a directory's `*.json` files, by task, in repeat order."""
    if path.is_dir():
        files = sorted(path.glob("*.json"))
        if not files:
            raise UsageError(f"--agent: {path} holds no saved trajectory (*.json)")
    else:
        files = [path]
    by_task: dict[str, list[Saved]] = {}
    for file in files:
        saved = read_saved(file)
        by_task.setdefault(saved.task_id, []).append(saved)
    for task_id, saved in by_task.items():
        saved.sort(key=lambda one: (one.repeat is None, one.repeat or 0, one.path.name))
        repeats = [one.repeat for one in saved if one.repeat is not None]
        if len(set(repeats)) < len(repeats):
            twice = [one.path.name for one in saved]
            raise UsageError(
                f"--agent: {path} holds the same repeat of task {task_id} twice ({', '.join(twice)})"
            )
    return by_task


def read_saved(path: Path) -> Saved:
    """One saved trajectory (or a saved task run holding one); UsageError if it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        trajectory = data.get("trajectory", data)
        # an attempt refused as no action at all (`{"invalid": text}`) changed nothing to replay
        actions = [
            step["action"]
            for step in trajectory["steps"]
            if step.get("action") is not None and "invalid" not in step["action"]
        ]
        repeat = data.get("repeat", trajectory.get("repeat"))
        return Saved(path, str(trajectory["task_id"]), _repeat(repeat), actions)
    except OSError as error:
        raise UsageError(f"--agent: cannot read {path}: {error.strerror}") from None
    except (ValueError, KeyError, TypeError, AttributeError):
        raise UsageError(f"--agent: {path} is not a saved trajectory") from None


def _repeat(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def replay_agents(name: AgentName, action_timeout_s: float) -> Replays:
    """`--agent replay:<file or directory>`: the actions of saved task runs, sent again."""
    return Replays(Path(name.argument))
