"""Everything a check may read: the final and initial states, and the agent's final output."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assay.provider import Usage
from assay.spec.task import TaskSpec
from assay.verify.views import ReadView


@dataclass(frozen=True)
class VerifyContext:
    task: TaskSpec
    final: ReadView
    initial: ReadView
    agent_output: str
    request: str
    trial: Any = None  # a container-format task run's sandbox phases (world.sandbox.Trial)
    usage: Usage = field(default_factory=Usage)  # what judge checks spent asking their model

    def view(self, db: str) -> ReadView:
        return self.initial if db == "initial" else self.final
