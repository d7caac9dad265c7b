"""Helpers for tests of the RL surfaces: the task they play, scripted agents' actions as text."""

from __future__ import annotations

import json

from assay.taskrun import agent_factory
from assay.taskrun.actions import Finish, action_json

TASK = "refund-double-charge"


def played(task, agent: str) -> list[str]:
    """The actions a scripted agent (`reference`, `noop`, `wrong:<name>`) takes, as JSON text."""
    scripted = agent_factory(agent)(task)
    actions = []
    while True:
        action = scripted.act(None)
        actions.append(json.dumps(action_json(action)))
        if isinstance(action, Finish):
            return actions
