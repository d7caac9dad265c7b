"""A task run's conversation as a page shows it: the briefing, each message, each tool call with its
arguments and its result, faults and holds marked; from a model's transcript, else from the steps."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

# a tool result's status → the mark a reader looks for (faults injected, writes held, refusals)
MARKS = {
    "FAILED": "fault",
    "UNKNOWN": "fault",
    "HELD": "hold",
    "REJECTED": "refused",
    "ERROR": "refused",
}


@dataclass(frozen=True)
class Turn:
    """One entry: `kind` is briefing, agent, customer, notice, call or result."""

    kind: str
    who: str
    text: str = ""
    value: Any = None  # a call's arguments, a result's payload
    status: str | None = None
    mark: str | None = None


def conversation(trajectory: dict[str, Any] | None) -> list[Turn]:
    """The conversation of a trajectory: its model transcript when it has one of chat messages."""
    if not trajectory:
        return []
    transcript = trajectory.get("transcript")
    if (
        isinstance(transcript, list)
        and transcript
        and all(isinstance(message, dict) and "role" in message for message in transcript)
    ):
        return [turn for message in transcript for turn in _message_turns(message)]
    return [turn for step in trajectory.get("steps", []) for turn in _step_turns(step)]


def _message_turns(message: dict[str, Any]) -> list[Turn]:
    role = message.get("role")
    content = _text(message.get("content"))
    if role == "system":
        return [Turn("briefing", "briefing", content)]
    if role == "tool":
        payload = _decoded(content)
        status = payload.get("status") if isinstance(payload, dict) else None
        return [
            _result_turn(
                payload.get("tool") if isinstance(payload, dict) else None, status, payload
            )
        ]
    if role == "user":
        if content.startswith("[notice]"):
            return [Turn("notice", "notice", content.removeprefix("[notice]").strip())]
        return [Turn("customer", "customer", content)]
    turns = [Turn("agent", "agent", content)] if content else []
    for call in message.get("tool_calls") or []:
        function = call.get("function", {})
        turns.append(
            Turn("call", function.get("name", "?"), value=_decoded(function.get("arguments")))
        )
    return turns


def _step_turns(step: dict[str, Any]) -> list[Turn]:
    turns = []
    for event in step.get("events", []):
        kind = event.get("type")
        if kind == "message":
            who = event.get("from") or "message"
            turns.append(Turn("customer", who, event.get("text") or ""))
        elif kind == "tool_result":
            shown = {key: value for key, value in event.items() if key not in ("type", "tool")}
            turns.append(_result_turn(event.get("tool"), event.get("status"), shown))
        else:
            text = event.get("text") or event.get("message") or ""
            turns.append(Turn("notice", "notice", text, status=event.get("status")))
    action = step.get("action") or {}
    if "call" in action:
        call = action["call"]
        turns.append(Turn("call", call.get("tool", "?"), value=call.get("args", {})))
    elif "say" in action:
        turns.append(Turn("agent", "agent", str(action["say"])))
    elif "finish" in action:
        turns.append(Turn("agent", "agent · finish", str(action["finish"])))
    return turns


def _result_turn(tool: str | None, status: str | None, payload: Any) -> Turn:
    who = f"{tool} → {status}" if tool else f"→ {status or 'result'}"
    return Turn("result", who, value=payload, status=status, mark=MARKS.get(status or ""))


def _text(content: Any) -> str:
    """A message's content as text: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)


def _decoded(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text
