"""Turn `--agent` text into agents: noop, reference, wrong:<name>, replay:<file>, module:Class.

The built-in agents only send actions and run in-process; a user's class runs in a process of its
own (`isolated.py`), so it holds no handle on the world.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay.errors import UsageError
from assay.spec.task import TaskSpec
from assay.taskrun.agents.base import Agent
from assay.taskrun.agents.isolated import DEFAULT_ACTION_TIMEOUT_S, IsolatedAgents
from assay.taskrun.agents.scripted import ActionsAgent, ScriptedAgent

AgentFactory = Callable[[TaskSpec], Agent]


def agent_factory(name: str, *, action_timeout_s: float = DEFAULT_ACTION_TIMEOUT_S) -> AgentFactory:
    """A function that makes a fresh agent for each task run; UsageError if `name` is unknown.

    A class (`module:Class`, `file.py:Class`) is imported in its own process, started now and kept
    for every task run the factory makes; `action_timeout_s` bounds each of its actions.
    """
    if name == "noop":
        return lambda task: ScriptedAgent([])
    if name in ("reference", "oracle"):  # "oracle": what container-format users call it
        return _reference
    if name.startswith("wrong:"):
        wrong = name.removeprefix("wrong:")
        return lambda task: _wrong(task, wrong)
    if name.startswith("model:"):
        model = name.removeprefix("model:")
        if not model:
            raise UsageError("--agent: name the model, as model:<name>")
        import threading

        from assay.taskrun.agents.model import ModelAgent, ModelOptions, make_client

        options = ModelOptions.from_env()
        client = make_client(options)  # one client, its connections shared by every task run
        gate = threading.BoundedSemaphore(options.max_connections or 1_000_000)
        return lambda task: ModelAgent(model, options, client, gate)
    if name.startswith("replay:"):
        path = Path(name.removeprefix("replay:"))
        task_id, actions = replayed(path)
        return lambda task: _replay(task, task_id, actions, path)
    if ":" in name:
        return IsolatedAgents(name, action_timeout_s)
    raise UsageError(
        f"--agent: unknown agent {name!r}; use noop, reference (or oracle), wrong:<name>, "
        "replay:<file>, model:<name> or module:Class"
    )


def check_agent_for(name: str, task: TaskSpec) -> None:
    """Refuse before running when a scripted agent has no script for this task."""
    if name in ("reference", "oracle") and task.solution is None:
        raise UsageError(f"--agent: task {task.id} has no [solution]")
    if name.startswith("replay:"):
        task_id, _ = replayed(Path(name.removeprefix("replay:")))
        if task_id != task.id:
            raise UsageError(
                f"--agent: {name.removeprefix('replay:')} replays task {task_id}, not {task.id}"
            )
    if name.startswith("wrong:") and task.wrong_solution(name.removeprefix("wrong:")) is None:
        names = ", ".join(w.name for w in task.wrong) or "none"
        raise UsageError(
            f"--agent: task {task.id} has no wrong solution {name.removeprefix('wrong:')!r} "
            f"(it has: {names})"
        )


def _reference(task: TaskSpec) -> Agent:
    if task.solution is None:
        raise UsageError(f"--agent: task {task.id} has no [solution]")
    return ScriptedAgent(task.solution.steps)


def _wrong(task: TaskSpec, name: str) -> Agent:
    wrong = task.wrong_solution(name)
    if wrong is None:
        raise UsageError(f"--agent: task {task.id} has no wrong solution {name!r}")
    return ScriptedAgent(wrong.steps)


def _replay(task: TaskSpec, task_id: str, actions: list[dict[str, Any]], path: Path) -> Agent:
    if task_id != task.id:
        raise UsageError(f"--agent: {path} is a trajectory of task {task_id}, not {task.id}")
    return ActionsAgent(actions)


def replayed(path: Path) -> tuple[str, list[dict[str, Any]]]:
    """The task id and the actions of a saved trajectory (or a saved task run holding one)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        trajectory = data.get("trajectory", data)
        # an attempt refused as no action at all (`{"invalid": text}`) changed nothing to replay
        actions = [
            step["action"]
            for step in trajectory["steps"]
            if step.get("action") is not None and "invalid" not in step["action"]
        ]
        return str(trajectory["task_id"]), actions
    except OSError as error:
        raise UsageError(f"--agent: cannot read {path}: {error.strerror}") from None
    except (ValueError, KeyError, TypeError, AttributeError):
        raise UsageError(f"--agent: {path} is not a saved trajectory") from None


def close_agents(factory: AgentFactory) -> None:
    """Stop what a factory keeps running (the process of a Python class agent); others hold none."""
    close = getattr(factory, "close", None)
    if callable(close):
        close()
