"""The action, observation and state an OpenEnv client exchanges with an assay world, as
openenv-core's own models."""

from __future__ import annotations

from typing import Any

from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field


class TaskAction(Action):
    """One action: exactly one of `call`, `say` or `finish`, as the HTTP API takes them. Any
    other mix is a rejected attempt the agent sees, not an error."""

    call: dict[str, Any] | None = Field(
        None, description='A tool call: {"tool": name, "args": {...}}.'
    )
    say: str | None = Field(None, description="A message to the customer.")
    finish: str | None = Field(None, description="The agent is done; its final output.")

    def as_action(self) -> dict[str, Any]:
        """The action's JSON, as assay reads it."""
        return {
            key: value
            for key, value in (("call", self.call), ("say", self.say), ("finish", self.finish))
            if value is not None
        }


class TaskObservation(Observation):
    """`done` and `reward` as OpenEnv has them: the reward is 0 until the task run ends, then its
    reward (1 / 0 / -1; 0 with `info["not_scored"]` when the run was not scored)."""

    observation: dict[str, Any] = Field(
        default_factory=dict, description="The task run's observation, as the HTTP API gives it."
    )
    truncated: bool = Field(False, description="The run was cut short: max_turns or its time.")
    info: dict[str, Any] = Field(
        default_factory=dict,
        description="Task id and turn; at the end outcome, score, verdict, summary and checks.",
    )


class TaskState(State):
    """`episode_id` is the task run's id and `step_count` its turn."""

    task_run_id: str | None = None
    task_id: str | None = None
    turn: int = 0
    done: bool = False
