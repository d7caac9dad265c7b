"""Agents that follow a script: the reference solution, a wrong solution, or nothing at all."""

from __future__ import annotations

from typing import Any

from assay.spec.task import Step
from assay.taskrun.actions import AnyAction, Finish, Say, call
from assay.taskrun.observation import Observation


class ScriptedAgent:
    """Takes its steps in order, then finishes with no output."""

    def __init__(self, steps: list[Step]):
        self._actions = [_action(step) for step in steps]
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


def _action(step: Step) -> AnyAction:
    if step.call is not None:
        return call(step.call, **step.args)
    if step.say is not None:
        return Say(say=step.say)
    return Finish(finish=step.finish or "")
