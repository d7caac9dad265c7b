"""Turn `--agent` text into agents, by the kind `parse_agent` reads in it (see `names.py`).

Each kind's maker lives beside the agent it makes and is imported on first use. The built-in
agents only send actions and run in-process; a user's class runs in a process of its own
(`isolated.py`), so it holds no handle on the world.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from assay.errors import UsageError
from assay.formats.task import TaskSpec
from assay.registry import KindError, Registry
from assay.taskrun.agents.base import Agent
from assay.taskrun.agents.isolated import DEFAULT_ACTION_TIMEOUT_S, IsolatedAgents
from assay.taskrun.agents.names import AgentName, parse_agent
from assay.taskrun.agents.replay import Replays


class AgentFactory(Protocol):
    """Makes a fresh agent for one task run: of `task`, its `repeat` (from 0)."""

    def __call__(self, task: TaskSpec, repeat: int = 0) -> Agent: ...


class AgentMaker(Protocol):
    """Makes the factory of one kind of agent, for the parsed `--agent` text."""

    def __call__(self, name: AgentName, action_timeout_s: float) -> AgentFactory: ...


# kind → its maker; installed packages add agents (by entry point name) in `assay.agents`
AGENT_KINDS: Registry[AgentMaker] = Registry("agent", group="assay.agents")
for _kind, _maker in {
    "noop": "scripted:noop_agents",
    "reference": "scripted:reference_agents",
    "wrong": "scripted:wrong_agents",
    "replay": "replay:replay_agents",
    "model": "model:model_agents",
    "cli": "cli:cli_agents",
    "class": "isolated:class_agents",
    "installed": "resolve:installed_agents",
}.items():
    AGENT_KINDS.declare(_kind, f"assay.taskrun.agents.{_maker}")


def agent_factory(name: str, *, action_timeout_s: float = DEFAULT_ACTION_TIMEOUT_S) -> AgentFactory:
    """A function that makes a fresh agent for each task run; UsageError if `name` is unknown.

    A class (`module:Class`, `file.py:Class`, an installed agent) is imported in its own process,
    started now and kept for every task run the factory makes; `action_timeout_s` bounds each of
    its actions.
    """
    parsed = parse_agent(name)
    return AGENT_KINDS.get(parsed.kind)(parsed, action_timeout_s)


def installed_agents(name: AgentName, action_timeout_s: float) -> AgentFactory:
    """An agent an installed package declares in `assay.agents`: its class, run as a user's class."""
    try:
        reference = AGENT_KINDS.plugins().get(name.argument)
    except KindError as error:
        raise UsageError(f"--agent: {error}") from None
    if reference is None:
        installed = "".join(f", {found}" for found in AGENT_KINDS.plugins())
        raise UsageError(
            f"--agent: unknown agent {name.text!r}; use noop, reference (or oracle), wrong:<name>, "
            f"replay:<file or directory>, model:<name>, cli:<name>, module:Class{installed}"
        )
    return IsolatedAgents(reference, action_timeout_s)


def check_agent_for(name: str, task: TaskSpec, made: AgentFactory | None = None) -> None:
    """Refuse before running when a scripted agent has no script for this task; `made`, the
    factory of `name` if there is one already, spares reading saved trajectories again."""
    parsed = parse_agent(name)
    if parsed.kind == "reference" and task.solution is None:
        raise UsageError(f"--agent: task {task.id} has no [solution]")
    if parsed.kind == "replay":
        replays = made if isinstance(made, Replays) else Replays(Path(parsed.argument))
        replays.check(task)
    if parsed.kind == "wrong" and task.wrong_solution(parsed.argument) is None:
        names = ", ".join(w.name for w in task.wrong) or "none"
        raise UsageError(
            f"--agent: task {task.id} has no wrong solution {parsed.argument!r} (it has: {names})"
        )


def close_agents(factory: AgentFactory) -> None:
    """Stop what a factory keeps running (the process of a Python class agent); others hold none."""
    close = getattr(factory, "close", None)
    if callable(close):
        close()
