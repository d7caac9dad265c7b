"""What an agent sees before each action."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

HELD_MESSAGE = "A new message from the customer arrived before this change was made"
UNKNOWN_MESSAGE = "request timed out; the outcome is unknown"
FAILED_MESSAGE = "request failed; the operation was not carried out"


class Event(BaseModel, defer_build=True):
    """One thing that happened since the agent's last action."""

    model_config = ConfigDict(populate_by_name=True, frozen=True)

    type: Literal["message", "tool_result", "notice"]
    sender: str | None = Field(None, alias="from")
    text: str | None = None
    tool: str | None = None
    status: str | None = None
    operation_id: str | None = None
    result: Any = None
    code: str | None = None
    message: str | None = None


@lru_cache(maxsize=1024)  # the task's request opens every task run; an Event is frozen
def customer_message(text: str) -> Event:
    return Event(type="message", sender="customer", text=text)


def notice(text: str) -> Event:
    return Event(type="notice", text=text)


class Limits(BaseModel, defer_build=True):
    """What bounds the task run: turns, messages to the customer before they count as
    interruptions, and wall-clock time."""

    max_turns: int
    max_contacts: int | None = None
    time_limit_s: float | None = None


class Briefing(BaseModel, defer_build=True):
    """What an agent is told about where it works: the world's and its role's descriptions, the
    instructions (policy) it must follow, and the world clock's time now. Frozen: task runs at the
    same time of the world's clock share one."""

    model_config = ConfigDict(frozen=True)

    world: str
    world_description: str | None = None
    role_description: str | None = None
    instructions: str | None = None
    now: str


class Observation(BaseModel, defer_build=True):
    """What an agent sees before each action: the task's request, the tools its role may call,
    what happened since its last action (`events`), and how many turns are left."""

    task_id: str
    role: str
    request: str
    briefing: Briefing | None = None
    turn: int
    turns_left: int
    tools: list[dict[str, Any]]
    events: list[Event]
    limits: Limits
    done: bool = False

    def as_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)
