"""Agents: the built-in ones run in-process; a user's class runs in a process of its own.

Names are imported on first use: the agent's own process (`child`) needs none of them.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "assay.taskrun.agents.base": ["Agent", "BoundedAgent", "OutOfTime"],
    "assay.taskrun.agents.isolated": [
        "DEFAULT_ACTION_TIMEOUT_S",
        "IsolatedAgent",
        "IsolatedAgents",
    ],
    "assay.taskrun.agents.resolve": [
        "AgentFactory",
        "agent_factory",
        "check_agent_for",
        "close_agents",
    ],
    "assay.taskrun.agents.scripted": ["ActionsAgent", "ScriptedAgent"],
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
