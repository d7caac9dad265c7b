"""What a task run leaves besides the world's state: how it ended, counts, and the trajectory."""

from __future__ import annotations

from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, TypeAdapter

from assay.taskrun.observation import Event

Termination = Literal["finished", "max_turns", "timeout", "agent_error", "cancelled", "world_error"]


class RunError(BaseModel, defer_build=True):
    """Which side failed (`world`, `agent` or `scoring`) and why; such a run is not scored, but
    for a verifier that failed after the agent acted: that run is not achieved (side `agent`)."""

    side: Literal["world", "agent", "scoring"]
    message: str


class Step(BaseModel, defer_build=True):
    """The events an agent saw at a turn and the action it took (none on the closing step)."""

    turn: int
    events: list[Event]
    action: dict[str, Any] | None


class Rollout(BaseModel, defer_build=True):
    task_id: str
    termination: Termination
    turns: int
    contacts: int
    rejected_attempts: int
    faults: int
    output: str
    request: str
    error: RunError | None = None
    tools: list[dict[str, Any]]
    steps: list[Step]

    def trajectory(self) -> dict[str, Any]:
        """Observations and actions in order, as stored and replayed."""
        return {
            "task_id": self.task_id,
            "tools": self.tools,
            "steps": _steps().dump_python(
                self.steps, mode="json", by_alias=True, exclude_none=True
            ),
        }


@cache
def _steps() -> TypeAdapter[list[Step]]:
    """All steps dumped in one call rather than one call per step; built on first use."""
    return TypeAdapter(list[Step])
