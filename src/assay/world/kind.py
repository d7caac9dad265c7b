"""The kinds of world behind one interface: how a world's task runs begin, move on and end, the
state digest they leave, and what grading reads from them; the database world's kind is here.

A `World` holds its `WorldKind`; each task run's `LiveWorld` holds the `KindRun` the kind began for
it. A database world's state is its live copy alone, so its kind does nothing of its own; a
container world (`assay.world.container.kind`) starts and verifies a sandbox for every task run.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from assay.formats.task import TaskSpec
    from assay.world.container.installed import InstalledAgent
    from assay.world.container.verification import VerifierRun
    from assay.world.database import WorldCopy


class KindRun(Protocol):
    """The kind's part of one task run, from its start to its close."""

    def start(self) -> str | None:
        """Get the task's outside parts ready; None when the agent may begin, else why not."""
        ...

    def advance(self) -> str | None:
        """At the agent's finish: the next instruction of a task in steps, or None at the end."""
        ...

    def state_digest(self) -> str:
        """The digest of the state the agent left, as the task run's result records it."""
        ...

    def verification(self) -> VerifierRun | None:
        """What the verifier phase left, run once (None: this kind of world has no such phase)."""
        ...

    @property
    def agent_acted(self) -> bool:
        """Whether the agent (or the reference solution) acted inside the world's own parts."""
        ...

    def agent_log(self, path: str, limit: int) -> bytes:
        """The first `limit` bytes of a log a command-line agent left (b"" when none)."""
        ...

    def keep_files(self, target: Path) -> list[str]:
        """Copy the task run's files into the trial folder `target` (made); a note for each thing
        left out."""
        ...

    def close(self) -> None:
        """Stop and remove what the task run started."""
        ...


class WorldKind(Protocol):
    """What a kind of world offers its task runs, and what its task runs need from the machine."""

    @property
    def sandboxed(self) -> bool:
        """Whether every task run runs in sandboxes on this machine (a container world): then CLI
        agents can run in it, its verifier may be separate, and it keeps trial folders."""
        ...

    trial_folders: Path | None  # where each task run's trial folder is kept (--keep-artifacts)

    def begin(
        self, task: TaskSpec, db: WorldCopy, installed: InstalledAgent | None = None
    ) -> KindRun:
        """The kind's part of a task run of `task` over the live copy `db` (not started yet);
        `installed`, a command-line agent to install in it."""
        ...


class DatabaseKind:
    """A database world: a task run's state is its live copy, which checks read from outside."""

    sandboxed = False
    trial_folders: Path | None = None

    def begin(
        self, task: TaskSpec, db: WorldCopy, installed: InstalledAgent | None = None
    ) -> DatabaseRun:
        return DatabaseRun(db)


class DatabaseRun:
    """A database world's task run: nothing to start or verify; its digest is its copy's hash."""

    agent_acted = False

    def __init__(self, db: WorldCopy):
        self.db = db

    def start(self) -> str | None:
        return None

    def advance(self) -> str | None:
        return None

    def state_digest(self) -> str:
        return self.db.state_hash()

    def verification(self) -> VerifierRun | None:
        return None

    def agent_log(self, path: str, limit: int) -> bytes:
        return b""

    def keep_files(self, target: Path) -> list[str]:
        target.mkdir(parents=True, exist_ok=True)
        return []

    def close(self) -> None:
        pass  # the live copy is the backend's to drop
