"""Agents: the built-in ones run in-process; a user's class runs in a process of its own."""

from assay.taskrun.agents.base import Agent, BoundedAgent, OutOfTime
from assay.taskrun.agents.isolated import DEFAULT_ACTION_TIMEOUT_S, IsolatedAgent, IsolatedAgents
from assay.taskrun.agents.resolve import (
    AgentFactory,
    agent_factory,
    check_agent_for,
    close_agents,
)
from assay.taskrun.agents.scripted import ActionsAgent, ScriptedAgent

__all__ = [
    "DEFAULT_ACTION_TIMEOUT_S",
    "ActionsAgent",
    "Agent",
    "AgentFactory",
    "BoundedAgent",
    "IsolatedAgent",
    "IsolatedAgents",
    "OutOfTime",
    "ScriptedAgent",
    "agent_factory",
    "check_agent_for",
    "close_agents",
]
