"""Turn `--agent` text into agents: noop, reference, wrong:<name>, replay:<path>, model:<name>,
cli:<name> (a command-line agent in a container task's sandbox) or module:Class.

The built-in agents only send actions and run in-process; a user's class runs in a process of its
own (`isolated.py`), so it holds no handle on the world.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from assay.errors import UsageError
from assay.spec.task import TaskSpec
from assay.taskrun.agents.base import Agent
from assay.taskrun.agents.isolated import DEFAULT_ACTION_TIMEOUT_S, IsolatedAgents
from assay.taskrun.agents.replay import Replays
from assay.taskrun.agents.scripted import ScriptedAgent


class AgentFactory(Protocol):
    """Makes a fresh agent for one task run: of `task`, its `repeat` (from 0)."""

    def __call__(self, task: TaskSpec, repeat: int = 0) -> Agent: ...


def agent_factory(name: str, *, action_timeout_s: float = DEFAULT_ACTION_TIMEOUT_S) -> AgentFactory:
    """A function that makes a fresh agent for each task run; UsageError if `name` is unknown.

    A class (`module:Class`, `file.py:Class`) is imported in its own process, started now and kept
    for every task run the factory makes; `action_timeout_s` bounds each of its actions.
    """
    if name == "noop":
        return lambda task, repeat=0: ScriptedAgent([])
    if name in ("reference", "oracle"):  # "oracle": what container-format users call it
        return _reference
    if name.startswith("wrong:"):
        wrong = name.removeprefix("wrong:")
        return lambda task, repeat=0: _wrong(task, wrong)
    if name.startswith("model:"):
        model = name.removeprefix("model:")
        if not model:
            raise UsageError("--agent: name the model, as model:<name>")
        import threading

        from assay.provider import make_client
        from assay.settings import in_force
        from assay.taskrun.agents.model import ModelAgent

        options = in_force().model
        client = make_client(
            options, model=model
        )  # one client, its connections shared by every task run
        gate = threading.BoundedSemaphore(options.max_connections or 1_000_000)
        return lambda task, repeat=0: ModelAgent(model, options, client, gate)
    if name.startswith("replay:"):
        return Replays(Path(name.removeprefix("replay:")))
    if name.startswith("cli:"):
        from assay.taskrun.agents.cli import CliAgents

        return CliAgents(name.removeprefix("cli:"))
    if ":" in name:
        return IsolatedAgents(name, action_timeout_s)
    raise UsageError(
        f"--agent: unknown agent {name!r}; use noop, reference (or oracle), wrong:<name>, "
        "replay:<file or directory>, model:<name>, cli:<name> or module:Class"
    )


def is_class_agent(name: str) -> bool:
    """Whether `--agent name` names a user's Python class (`module:Class`, `file.py:Class`)."""
    return ":" in name and not name.startswith(("model:", "replay:", "wrong:", "cli:"))


def check_agent_for(name: str, task: TaskSpec, made: AgentFactory | None = None) -> None:
    """Refuse before running when a scripted agent has no script for this task; `made`, the
    factory of `name` if there is one already, spares reading saved trajectories again."""
    if name in ("reference", "oracle") and task.solution is None:
        raise UsageError(f"--agent: task {task.id} has no [solution]")
    if name.startswith("replay:"):
        replays = made if isinstance(made, Replays) else Replays(Path(name[len("replay:") :]))
        replays.check(task)
    if name.startswith("wrong:") and task.wrong_solution(name.removeprefix("wrong:")) is None:
        names = ", ".join(w.name for w in task.wrong) or "none"
        raise UsageError(
            f"--agent: task {task.id} has no wrong solution {name.removeprefix('wrong:')!r} "
            f"(it has: {names})"
        )


def _reference(task: TaskSpec, repeat: int = 0) -> Agent:
    if task.solution is None:
        raise UsageError(f"--agent: task {task.id} has no [solution]")
    return ScriptedAgent(task.solution.steps)


def _wrong(task: TaskSpec, name: str) -> Agent:
    wrong = task.wrong_solution(name)
    if wrong is None:
        raise UsageError(f"--agent: task {task.id} has no wrong solution {name!r}")
    return ScriptedAgent(wrong.steps)


def close_agents(factory: AgentFactory) -> None:
    """Stop what a factory keeps running (the process of a Python class agent); others hold none."""
    close = getattr(factory, "close", None)
    if callable(close):
        close()
