"""The container world's kind: its container-format tasks by id, and each task run's trial (the
sandbox phases) behind the world-kind interface (`assay.world.kind`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.formats.container_task import ContainerTask
from assay.world.container.imagemap import NO_USER, UserImages
from assay.world.container.installed import InstalledAgent
from assay.world.container.trial import Trial
from assay.world.container.trial_files import keep_trial_files

if TYPE_CHECKING:
    from assay.formats.task import TaskSpec
    from assay.world.container.verification import VerifierRun
    from assay.world.database import WorldCopy
    from assay.world.live import World


@dataclass
class ContainerKind:
    """The container-format tasks of a world, by id, and how their task runs start."""

    root: Path
    tasks: dict[str, ContainerTask]
    notes: list[str] = field(default_factory=list)
    trial_folders: Path | None = None  # where each task run's trial folder is kept
    images: UserImages = NO_USER  # the images.toml mappings its task runs use
    sandboxed = True

    def trial(self, task_id: str, installed: InstalledAgent | None = None) -> Trial:
        """A task run's sandbox phases; `installed`, a command-line agent to install in it."""
        keep = self.trial_folders is not None
        return Trial(self.tasks[task_id], self.images, keep_logs=keep, installed=installed)

    def begin(
        self, task: TaskSpec, db: WorldCopy, installed: InstalledAgent | None = None
    ) -> ContainerRun:
        return ContainerRun(self.trial(task.id, installed))


class ContainerRun:
    """A container world's task run: its trial starts the sandbox, and its verifier phase gives
    the script check's reward files and the digest of the files the agent left."""

    def __init__(self, trial: Trial):
        self.trial = trial

    def start(self) -> str | None:
        return self.trial.start()

    def advance(self) -> str | None:
        return self.trial.advance()

    def exec_for_agent(self, command: str, timeout_s: float) -> dict[str, Any]:
        """The agent's `exec` in the task's sandbox."""
        return self.trial.exec_for_agent(command, timeout_s)

    def state_digest(self) -> str:
        return self.trial.verify().state_digest

    def verification(self) -> VerifierRun:
        return self.trial.verify()

    @property
    def agent_acted(self) -> bool:
        # True from the agent's first command on (the oracle's too); a trial without it never acted.
        return bool(getattr(self.trial, "agent_acted", False))

    def agent_log(self, path: str, limit: int) -> bytes:
        return self.trial.agent_log(path, limit)

    def keep_files(self, target: Path) -> list[str]:
        return keep_trial_files(self.trial, target)

    def close(self) -> None:
        self.trial.close()


def container_kind(world: World) -> ContainerKind:
    """`world`'s kind, which must be a container world's (TypeError for a database world)."""
    if not isinstance(world.kind, ContainerKind):
        raise TypeError(f"{world.name} is a database world, not a container world")
    return world.kind
