"""The HL7 interface's tools: send a message (answered with an ACK) and read the inbox."""

from __future__ import annotations

from typing import Any

from assay.world.services.lookup import service_for
from assay.world.tools import Tool


def hl7_send(world: Any, message: str, service: str | None = None) -> dict[str, Any]:
    """Send one HL7 v2 message (pipe-delimited, segments separated by carriage returns or new
    lines) to the interface engine; returns its ACK (AA accepted, AE error, AR rejected), or in
    enhanced mode (MSH-15/MSH-16 valued) the commit and application ACKs those fields ask for.

    Args:
        message: The whole message, starting with its MSH segment.
        service: The HL7 interface to use, when the world has more than one.
    """
    return service_for(world, "hl7", service).request("send", {"message": message})


def hl7_inbox(world: Any, service: str | None = None) -> dict[str, Any]:
    """List the HL7 v2 messages that arrived for the hospital (results, ADT feeds).

    Args:
        service: The HL7 interface to use, when the world has more than one.
    """
    return service_for(world, "hl7", service).request("inbox", {})


HL7_TOOLS = (Tool(hl7_send, writes=True), Tool(hl7_inbox))
