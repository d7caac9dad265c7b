"""The loop: observation → agent action → effect; customer, changes, holds, faults."""

from assay.taskrun.actions import (
    Call,
    Finish,
    InvalidAction,
    Say,
    ToolCall,
    call,
    finish,
    parse_action,
    say,
)
from assay.taskrun.agents import Agent, agent_factory, check_agent_for
from assay.taskrun.loop import drive
from assay.taskrun.observation import Event, Observation
from assay.taskrun.rollout import Rollout, RunError, Termination
from assay.taskrun.session import Session, SessionOver

__all__ = [
    "Agent",
    "Call",
    "Event",
    "Finish",
    "InvalidAction",
    "Observation",
    "Rollout",
    "RunError",
    "Say",
    "Session",
    "SessionOver",
    "Termination",
    "ToolCall",
    "agent_factory",
    "call",
    "check_agent_for",
    "drive",
    "finish",
    "parse_action",
    "say",
]
