"""Agents that run in-process."""

from assay.taskrun.agents.base import Agent
from assay.taskrun.agents.resolve import AgentFactory, agent_factory, check_agent_for
from assay.taskrun.agents.scripted import ActionsAgent, ScriptedAgent

__all__ = [
    "ActionsAgent",
    "Agent",
    "AgentFactory",
    "ScriptedAgent",
    "agent_factory",
    "check_agent_for",
]
