"""A task run as a chat: the briefing as the system message, the request as the customer's first
message, each event of an observation as the tool result or user message a chat model expects."""

from __future__ import annotations

import json
from typing import Any

from assay.taskrun.observation import Event, Observation

FINISH_TOOL = {
    "type": "function",
    "function": {
        "name": "finish",
        "description": "End the task: call this once the work is done (or cannot be done), with "
        "your final answer to the customer.",
        "parameters": {
            "type": "object",
            "properties": {"output": {"type": "string", "description": "Your final answer."}},
            "required": ["output"],
            "additionalProperties": False,
        },
    },
}


def system_message(observation: Observation) -> dict[str, Any]:
    """Who the model is, where it works, the rules it follows and the time now."""
    brief = observation.briefing
    lines = [f"You are the {observation.role} agent. Act only through the tools you are given."]
    if brief is not None:
        lines.append(f"World: {brief.world}. {brief.world_description or ''}".strip())
        if brief.role_description:
            lines.append(f"Your role: {brief.role_description}")
        lines.append(f"The time now is {brief.now}.")
        if brief.instructions:
            lines.append(f"Follow these instructions:\n{brief.instructions}")
    lines.append(
        "A reply without a tool call is sent to the customer, whose answer comes back to you. "
        "Call finish(output) when you are done."
    )
    return {"role": "system", "content": "\n\n".join(lines)}


def tool_schemas(observation: Observation) -> list[dict[str, Any]]:
    """The role's tools as chat-completion functions, and `finish`, always offered."""
    tools = [
        {
            "type": "function",
            "function": {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "parameters": tool["parameters"],
            },
        }
        for tool in observation.tools
    ]
    return [*tools, FINISH_TOOL]


def event_messages(events: list[Event], pending: list[str]) -> list[dict[str, Any]]:
    """Messages for what happened: each tool result answers the oldest pending tool call id."""
    messages: list[dict[str, Any]] = []
    for event in events:
        if event.type == "tool_result" and pending:
            messages.append(
                {"role": "tool", "tool_call_id": pending.pop(0), "content": _result(event)}
            )
        elif event.type == "message":
            messages.append({"role": "user", "content": event.text or ""})
        else:
            messages.append(
                {"role": "user", "content": f"[notice] {event.text or event.message or ''}"}
            )
    return messages


def _result(event: Event) -> str:
    shown = event.model_dump(mode="json", exclude_none=True, by_alias=True)
    shown.pop("type", None)
    return json.dumps(shown, default=str)
