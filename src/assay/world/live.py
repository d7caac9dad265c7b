"""A loaded world, and the live copy of it that one task run works in."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from assay.formats.task import TaskSpec
from assay.formats.world import WorldSpec
from assay.world.backend import Backend, SqliteBackend
from assay.world.clock import Clock
from assay.world.database import WorldCopy
from assay.world.digest import files_digest
from assay.world.kind import DatabaseKind, DatabaseRun, KindRun, WorldKind
from assay.world.reserved import INSERT_ACTION, INSERT_REQUEST
from assay.world.services import Service
from assay.world.shared import SharedCopy
from assay.world.starting import StartingState
from assay.world.tools import Tool

if TYPE_CHECKING:
    from assay.formats.verifier_choice import VerifierChoice
    from assay.world.container.installed import InstalledAgent

_ARGS_JSON = json.JSONEncoder(sort_keys=True, default=str)  # json.dumps would build it every call


@dataclass
class World:
    """A world directory, loaded: its spec, tools, services, tasks and starting state."""

    root: Path
    spec: WorldSpec
    tools: dict[str, Tool]
    services: dict[str, tuple[type[Service], dict[str, Any]]]
    tasks: dict[str, TaskSpec]
    task_files: dict[str, Path]
    verifier_modules: list[ModuleType] = field(default_factory=list)
    backend: Backend = None  # type: ignore[assignment]  # SQLite unless load_world chose otherwise
    world_db: str | None = None  # the PostgreSQL URL it was loaded with, for worker processes
    kind: WorldKind = field(default_factory=DatabaseKind)  # a container world's loader sets its own
    verifier_mode: VerifierChoice = "task"  # the run's choice it was loaded with, for workers
    instructions: dict[str, str] = field(default_factory=dict)  # role → what its agents are told
    left_out: frozenset[str] = frozenset()  # task ids not loaded (withdrawn), for worker processes
    _described: dict[str, list[dict[str, Any]]] = field(default_factory=dict, repr=False)
    # (role, time) → what an agent of the role is told at that time of the clock (taskrun's Briefing)
    briefings: dict[tuple[str, datetime], Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.backend is None:
            self.backend = SqliteBackend(self.root, self.spec)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def version(self) -> str:
        return self.spec.version

    @property
    def snapshot(self) -> Any:
        """The starting state, built once per version of the data files (on first use)."""
        return self.backend.snapshot

    def reset(self) -> LiveWorld:
        """A fresh copy of the starting state, with its own services and clock."""
        return LiveWorld(self, self.backend.open_copy())

    @cached_property
    def files_digest(self) -> str:
        """The digest of the world's files (`assay.world.digest.files_digest`), read once: each run
        a server or an RL pool makes of this world records it."""
        return files_digest(self.root)

    @cached_property
    def initial(self) -> WorldCopy:
        """The starting state, read-only; shared by every task run in this process, one thread
        at a time (`assay.world.shared`)."""
        return cast(WorldCopy, SharedCopy(self.backend.initial()))

    @cached_property
    def starting(self) -> StartingState:
        """Answers read of the starting state, kept for the task runs after (`assay.world.starting`)."""
        return StartingState(self.initial)

    def close(self) -> None:
        """Close the read-only starting state and the backend's connections; reopened on use."""
        self.__dict__.pop("starting", None)
        initial = self.__dict__.pop("initial", None)
        if initial is not None:
            initial.close()
        self.backend.close()

    def role_tools(self, role: str) -> dict[str, Tool]:
        return {name: self.tools[name] for name in self.spec.roles[role].tools}

    def describe_role(self, role: str) -> list[dict[str, Any]]:
        """The role's tools as an agent sees them, built once."""
        described = self._described.get(role)
        if described is None:
            described = [tool.describe() for tool in self.role_tools(role).values()]
            self._described[role] = described
        return described


class LiveWorld:
    """What a tool receives as `world`: `db`, `services`, `now()` and the current `turn`."""

    def __init__(self, world: World, db: WorldCopy):
        self.world = world
        self.db = db
        self.clock = Clock(world.spec.clock, world.spec.clock_step_s)
        self.turn = 0
        self._requests: list[tuple[Any, ...]] = []
        self._request_count = 0
        self.services: dict[str, Service] = {
            name: kind(name, options, self) for name, (kind, options) in world.services.items()
        }
        self.run: KindRun = DatabaseRun(db)  # until `begin`: the world kind's part of the task run

    def begin(self, task: TaskSpec, installed: InstalledAgent | None = None) -> str | None:
        """Get the task's outside parts ready (a container world starts and builds its sandbox,
        with `installed`, a command-line agent, in it); None when ready, else why the task run
        cannot start."""
        self.run = self.world.kind.begin(task, self.db, installed)
        return self.run.start()

    def advance(self) -> str | None:
        """At the agent's finish: the next instruction of a task in steps (its current step
        verified first), or None when the task run ends here."""
        return self.run.advance()

    def now(self) -> datetime:
        return self.clock.now()

    def record_request(
        self,
        service: str,
        operation: str,
        payload: str,
        response: str,
        status: str,
        duplicate_of: int | None,
    ) -> int:
        """Queue one service request; `flush` writes it, so a tool's rollback cannot erase it."""
        self._request_count += 1
        self._requests.append(
            (
                self._request_count,
                service,
                operation,
                payload,
                response,
                status,
                self.turn,
                self.clock.stamp(),
                duplicate_of,
            )
        )
        return self._request_count

    def flush(self) -> None:
        if self._requests:
            self.db.execute_many(INSERT_REQUEST, self._requests)
            self._requests.clear()

    def record_action(
        self, kind: str, tool: str | None, args: Any, status: str, operation_id: str | None = None
    ) -> None:
        text = None if args is None else _ARGS_JSON.encode(args)
        self.db.execute(INSERT_ACTION, self.turn, kind, tool, text, status, operation_id)

    def freeze(self) -> None:
        """The task run is over: write what is queued and allow nothing but reading from now on."""
        self.flush()
        self.db.lock_readonly()

    def close(self) -> None:
        self.run.close()
        self.world.backend.drop(self.db)
