"""Turn `--agent` text into agents: noop, reference, wrong:<name>, replay:<file>, module:Class."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay.errors import UsageError
from assay.spec.task import TaskSpec
from assay.taskrun.agents.base import Agent
from assay.taskrun.agents.scripted import ActionsAgent, ScriptedAgent

AgentFactory = Callable[[TaskSpec], Agent]


def agent_factory(name: str) -> AgentFactory:
    """A function that makes a fresh agent for each task run; UsageError if `name` is unknown."""
    if name == "noop":
        return lambda task: ScriptedAgent([])
    if name == "reference":
        return _reference
    if name.startswith("wrong:"):
        wrong = name.removeprefix("wrong:")
        return lambda task: _wrong(task, wrong)
    if name.startswith("replay:"):
        path = Path(name.removeprefix("replay:"))
        task_id, actions = replayed(path)
        return lambda task: _replay(task, task_id, actions, path)
    if ":" in name:
        return _class_factory(name)
    raise UsageError(
        f"--agent: unknown agent {name!r}; use noop, reference, wrong:<name>, replay:<file> "
        "or module:Class"
    )


def check_agent_for(name: str, task: TaskSpec) -> None:
    """Refuse before running when a scripted agent has no script for this task."""
    if name == "reference" and task.solution is None:
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
        actions = [step["action"] for step in trajectory["steps"] if step.get("action") is not None]
        return str(trajectory["task_id"]), actions
    except OSError as error:
        raise UsageError(f"--agent: cannot read {path}: {error.strerror}") from None
    except (ValueError, KeyError, TypeError, AttributeError):
        raise UsageError(f"--agent: {path} is not a saved trajectory") from None


def _class_factory(name: str) -> AgentFactory:
    module_name, _, class_name = name.rpartition(":")
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))  # so `mypkg.agents:MyAgent` finds the user's package
    try:
        if module_name.endswith(".py"):
            spec = importlib.util.spec_from_file_location(Path(module_name).stem, module_name)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {module_name}")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except Exception as error:
        raise UsageError(f"--agent: cannot import {module_name}: {error}") from None
    found = getattr(module, class_name, None)
    if not isinstance(found, type) or not callable(getattr(found, "act", None)):
        raise UsageError(f"--agent: {name} is not a class with act(observation)")
    agent_class: Any = found
    return lambda task: agent_class()
