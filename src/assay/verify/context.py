"""Everything a check may read: the final and initial states, the agent's final output, and the
world kind's part of the task run (a container world's verifier phase)."""

from __future__ import annotations

from dataclasses import dataclass, field

from assay.formats.task import TaskSpec
from assay.provider import Usage
from assay.verify.views import ReadView
from assay.world.kind import KindRun


@dataclass(frozen=True)
class VerifyContext:
    task: TaskSpec
    final: ReadView
    initial: ReadView
    agent_output: str
    request: str
    world_run: KindRun  # the world kind's part of the task run (a container world's verifier)
    termination: str | None = None  # how the task run ended: finished, timeout, …
    usage: Usage = field(default_factory=Usage)  # what judge checks spent asking their model

    def view(self, db: str) -> ReadView:
        return self.initial if db == "initial" else self.final
