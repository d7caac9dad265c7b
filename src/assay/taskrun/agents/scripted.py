"""Agents that follow a script: the reference solution, a wrong solution, or nothing at all."""

from __future__ import annotations

from typing import Any

from assay.errors import UsageError
from assay.formats.task import Step, TaskSpec
from assay.taskrun.actions import AnyAction, Finish, Say, call
from assay.taskrun.observation import Observation


class ScriptedAgent:
    """Takes its steps in order, then finishes with no output."""

    def __init__(self, steps: list[Step]):
        self._actions = _actions(steps)
        self._next = 0

    def act(self, observation: Observation) -> AnyAction:
        if self._next >= len(self._actions):
            return Finish(finish="")
        action = self._actions[self._next]
        self._next += 1
        return action


class ActionsAgent:
    """Replays actions in their JSON form, in order, then finishes with no output."""

    def __init__(self, actions: list[dict[str, Any]]):
        self._actions = actions
        self._next = 0

    def act(self, observation: Observation) -> Any:
        if self._next >= len(self._actions):
            return {"finish": ""}
        action = self._actions[self._next]
        self._next += 1
        return action


PARSED_KEPT = 1024
# The actions of each script seen lately, by the list's identity: a task's reference agent is built
# for every task run. Steps and actions are frozen; the list is held (its id is not reused) and its
# steps compared by identity, so a list changed in place is parsed again.
_parsed: dict[int, tuple[list[Step], tuple[Step, ...], tuple[AnyAction, ...]]] = {}


def _actions(steps: list[Step]) -> tuple[AnyAction, ...]:
    found = _parsed.get(id(steps))
    if found is None or not _same(found[1], steps):
        if len(_parsed) >= PARSED_KEPT:
            _parsed.clear()
        found = (steps, tuple(steps), tuple(_action(step) for step in steps))
        _parsed[id(steps)] = found
    return found[2]


def _same(seen: tuple[Step, ...], steps: list[Step]) -> bool:
    return len(seen) == len(steps) and all(a is b for a, b in zip(seen, steps, strict=True))


def _action(step: Step) -> AnyAction:
    if step.call is not None:
        return call(step.call, **step.args)
    if step.say is not None:
        return Say(say=step.say)
    return Finish(finish=step.finish or "")


def noop_agents(name: Any, action_timeout_s: float) -> Any:
    """`--agent noop`: finishes at once, doing nothing."""
    return lambda task, repeat=0: ScriptedAgent([])


def reference_agents(name: Any, action_timeout_s: float) -> Any:
    """`--agent reference`: the task's own `[solution]`."""
    return _reference


def wrong_agents(name: Any, action_timeout_s: float) -> Any:
    """`--agent wrong:<name>`: the task's wrong solution of that name."""
    return lambda task, repeat=0: _wrong(task, name.argument)


def _reference(task: TaskSpec, repeat: int = 0) -> ScriptedAgent:
    if task.solution is None:
        raise UsageError(f"--agent: task {task.id} has no [solution]")
    return ScriptedAgent(task.solution.steps)


def _wrong(task: TaskSpec, name: str) -> ScriptedAgent:
    wrong = task.wrong_solution(name)
    if wrong is None:
        raise UsageError(f"--agent: task {task.id} has no wrong solution {name!r}")
    return ScriptedAgent(wrong.steps)
