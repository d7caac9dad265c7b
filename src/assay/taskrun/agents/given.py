"""An agent handed to the runner as a Python object (an instance, its class, or a function that makes
one for each task run) rather than named by an `--agent` string; it runs in the caller's process."""

from __future__ import annotations

from typing import TypeAlias

from assay.errors import UsageError
from assay.taskrun.agents.base import Agent
from assay.taskrun.agents.resolve import AgentFactory

GivenAgent: TypeAlias = Agent | type[Agent] | AgentFactory
"""What the runner takes besides an `--agent` string: an object with `act(observation)`, used for
every task run; a class with such a method, one fresh instance (made with no arguments) per task
run; or a function `(task, repeat) -> Agent`."""


def given_factory(agent: GivenAgent) -> AgentFactory:
    """A factory of fresh agents from an agent given as an object; UsageError for anything else."""
    if isinstance(agent, type):
        if not callable(getattr(agent, "act", None)):
            raise UsageError(f"agent: class {agent.__qualname__} has no act(observation) method")
        made: type[Agent] = agent
        return lambda task, repeat=0: made()
    if isinstance(agent, Agent):
        same: Agent = agent
        return lambda task, repeat=0: same
    if callable(agent):
        return agent
    raise UsageError(
        "agent: give an --agent name, an object with act(observation), its class, or a function "
        f"(task, repeat) -> agent; got {type(agent).__name__}"
    )


def given_name(agent: GivenAgent) -> str:
    """The name the run records for an agent given as an object: `module:Class` of its class (of
    the function, for a factory), as `--agent` names a class."""
    named = agent if isinstance(agent, type) or not isinstance(agent, Agent) else type(agent)
    module = getattr(named, "__module__", None) or "python"
    qualname = getattr(named, "__qualname__", None) or type(named).__qualname__
    return f"{module}:{qualname}"
