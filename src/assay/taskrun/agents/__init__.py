"""Agents: the built-in ones run in-process; a user's class runs in a process of its own.

Names are imported on first use: the agent's own process (`child`) needs none of them.
"""

from __future__ import annotations

from assay.lazy import lazy_names

_EXPORTS = {
    "assay.taskrun.agents.base": ["Agent", "BoundedAgent", "OutOfTime"],
    "assay.taskrun.agents.given": ["GivenAgent", "given_factory", "given_name"],
    "assay.taskrun.agents.isolated": [
        "DEFAULT_ACTION_TIMEOUT_S",
        "IsolatedAgent",
        "IsolatedAgents",
    ],
    "assay.taskrun.agents.names": ["AgentName", "parse_agent"],
    "assay.taskrun.agents.resolve": [
        "AGENT_KINDS",
        "AgentFactory",
        "agent_factory",
        "check_agent_for",
        "close_agents",
    ],
    "assay.taskrun.agents.scripted": ["ActionsAgent", "ScriptedAgent"],
}
__all__, __getattr__ = lazy_names(__name__, _EXPORTS)
