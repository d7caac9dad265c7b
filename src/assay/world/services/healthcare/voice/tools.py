"""The voice line's tools: call, say, press digits, hang up."""

from __future__ import annotations

from typing import Any

from assay.world.services.lookup import service_for
from assay.world.tools import Tool


def voice_call(world: Any, number: str, service: str | None = None) -> dict[str, Any]:
    """Call a phone number; returns the call's id and what the line says first.

    Args:
        number: The number to dial, as written in the task (e.g. +1-800-555-0100).
        service: The voice line to use, when the world has more than one.
    """
    return service_for(world, "voice", service).request("call", {"number": number})


def voice_say(world: Any, call_id: str, text: str, service: str | None = None) -> dict[str, Any]:
    """Say something on a call; returns what the other side answers.

    Args:
        call_id: The id voice_call returned.
        text: What you say.
        service: The voice line to use, when the world has more than one.
    """
    return service_for(world, "voice", service).request("say", {"call_id": call_id, "text": text})


def voice_press(
    world: Any, call_id: str, digits: str, service: str | None = None
) -> dict[str, Any]:
    """Press keys on the phone's keypad during a call; returns what the line answers.

    Args:
        call_id: The id voice_call returned.
        digits: The keys, e.g. "1" or "1234#".
        service: The voice line to use, when the world has more than one.
    """
    line = service_for(world, "voice", service)
    return line.request("press", {"call_id": call_id, "digits": digits})


def voice_hangup(world: Any, call_id: str, service: str | None = None) -> dict[str, Any]:
    """Hang up a call.

    Args:
        call_id: The id voice_call returned.
        service: The voice line to use, when the world has more than one.
    """
    return service_for(world, "voice", service).request("hangup", {"call_id": call_id})


VOICE_TOOLS = (
    Tool(voice_call, writes=True),
    Tool(voice_say, writes=True),
    Tool(voice_press, writes=True),
    Tool(voice_hangup, writes=True),
)
