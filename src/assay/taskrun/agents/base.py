"""The agent interface: one action for each observation."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from assay.taskrun.observation import Observation


@runtime_checkable
class Agent(Protocol):
    """What every agent is: one action for each observation. Any object with this method is one;
    it needs no base class.

    Hand one (or its class, or a function making one per task run) to `assay.run_benchmark`, or
    name its class as `--agent module:Class` to run it in a process of its own.
    """

    def act(self, observation: Observation) -> Any:
        """The next action: a typed `Call`/`Say`/`Finish` or its JSON form, such as
        `{"call": {"tool": "find_order", "args": {"order_id": "A-1042"}}}`."""
        ...


@runtime_checkable
class BoundedAgent(Agent, Protocol):
    """An agent that bounds its own wait: one in another process, which can be stopped."""

    def act_within(self, observation: Observation, seconds_left: float | None) -> Any:
        """The next action; OutOfTime when `seconds_left` (the task run's time) runs out first."""
        ...


class OutOfTime(Exception):
    """The task run's time ran out while the agent was thinking."""
