"""The voice line's tools: call, say, press digits, hang up."""

from __future__ import annotations

from typing import Any

from assay.errors import ToolError
from assay.world.services.lookup import service_for
from assay.world.tools import Tool


def _line(
    world: Any, service: str | None, number: str | None = None, call_id: str | None = None
) -> Any:
    """The named line; else the only one; else, with several, the one the number dials or the
    call is on."""
    lines = [found for found in world.services.values() if found.kind == "voice"]
    if service is not None or len(lines) <= 1:
        return service_for(world, "voice", service)
    if number is not None:
        chosen = [line for line in lines if str(line.options.get("number")) == number]
    else:
        chosen = [line for line in lines if call_id in line.calls]
    if len(chosen) == 1:
        return chosen[0]
    names = ", ".join(sorted(line.name for line in lines))
    raise ToolError("no_service", f"name the voice line to use with `service` ({names})")


def voice_call(world: Any, number: str, service: str | None = None) -> dict[str, Any]:
    """Call a phone number; returns the call's id and what the line says first.

    Args:
        number: The number to dial, as written in the task (e.g. +1-800-555-0100).
        service: The voice line to use, when the world has more than one.
    """
    return _line(world, service, number=number).request("call", {"number": number})


def voice_say(world: Any, call_id: str, text: str, service: str | None = None) -> dict[str, Any]:
    """Say something on a call; returns what the other side answers.

    Args:
        call_id: The id voice_call returned.
        text: What you say.
        service: The voice line to use, when the world has more than one.
    """
    return _line(world, service, call_id=call_id).request("say", {"call_id": call_id, "text": text})


def voice_press(
    world: Any, call_id: str, digits: str, service: str | None = None
) -> dict[str, Any]:
    """Press keys on the phone's keypad during a call; returns what the line answers.

    Args:
        call_id: The id voice_call returned.
        digits: The keys, e.g. "1" or "1234#".
        service: The voice line to use, when the world has more than one.
    """
    line = _line(world, service, call_id=call_id)
    return line.request("press", {"call_id": call_id, "digits": digits})


def voice_hangup(world: Any, call_id: str, service: str | None = None) -> dict[str, Any]:
    """Hang up a call.

    Args:
        call_id: The id voice_call returned.
        service: The voice line to use, when the world has more than one.
    """
    return _line(world, service, call_id=call_id).request("hangup", {"call_id": call_id})


VOICE_TOOLS = (
    Tool(voice_call, writes=True),
    Tool(voice_say, writes=True),
    Tool(voice_press, writes=True),
    Tool(voice_hangup, writes=True),
)
