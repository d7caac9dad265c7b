"""The agent interface: one action for each observation."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from assay.taskrun.observation import Observation


@runtime_checkable
class Agent(Protocol):
    def act(self, observation: Observation) -> Any:
        """Return an action: a typed Call/Say/Finish or its JSON form."""
        ...


@runtime_checkable
class BoundedAgent(Agent, Protocol):
    """An agent that bounds its own wait: one in another process, which can be stopped."""

    def act_within(self, observation: Observation, seconds_left: float | None) -> Any:
        """The next action; OutOfTime when `seconds_left` (the task run's time) runs out first."""
        ...


class OutOfTime(Exception):
    """The task run's time ran out while the agent was thinking."""
