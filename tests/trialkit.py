"""A stand-in for a container-format task run's sandbox phases, for tests of what grading does with
the verifier phase's outcome; real sandboxes are tested under tests/sandbox."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from assay.world.container.kind import ContainerKind
from assay.world.container.verification import VerifierRun


@dataclass
class StandInTrial:
    """Says the agent acted from its first command on, and gives `verified` as the verifier's."""

    verified: VerifierRun
    agent_acted: bool = False
    commands: list[str] = field(default_factory=list)

    def start(self) -> str | None:
        return None

    def exec_for_agent(self, command: str, timeout_s: float) -> dict[str, Any]:
        self.agent_acted = True
        self.commands.append(command)
        return {"stdout": "", "stderr": "", "exit_code": 0}

    def advance(self) -> str | None:
        return None  # a task of one step

    def verify(self) -> VerifierRun:
        return self.verified

    def close(self) -> None:
        pass


def logs_with(folder: Path, **files: str) -> Path:
    """A directory standing for /logs/verifier after the test script: `reward_txt="1"` writes
    reward.txt."""
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name.replace("_", ".")).write_text(text)
    return folder


def stand_in(monkeypatch: pytest.MonkeyPatch, verified: Mapping[str, VerifierRun]) -> None:
    """Every task run of task `id` gets a StandInTrial giving `verified[id]`."""
    monkeypatch.setattr(
        ContainerKind,
        "trial",
        lambda self, task_id, installed=None: StandInTrial(verified[task_id]),
    )


def note_verifier_modes(monkeypatch: pytest.MonkeyPatch, logs: Path) -> list[str]:
    """Stand-in trials, reward 1, each noting the verifier mode of the task it is made for (no
    sandbox is started); the list they note into."""
    seen: list[str] = []
    verified = logs_with(logs, reward_txt="1")

    def trial(self: ContainerKind, task_id: str, installed: object = None) -> StandInTrial:
        seen.append(self.tasks[task_id].config.verifier_mode())
        return StandInTrial(VerifierRun(logs=verified, problem=None))

    monkeypatch.setattr(ContainerKind, "trial", trial)
    return seen
