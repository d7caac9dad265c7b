"""The service kind `sms`: an SMS gateway that queues texts to phone numbers (nothing is sent;
every request is recorded, as every service's is), with the tool `send_sms`."""

from __future__ import annotations

import re
from typing import Any

from assay import Service, ServiceError, ToolError, tool

PHONE = re.compile(r"\+\d{7,15}")
MAX_CHARACTERS = 160


@tool(writes=True)
def send_sms(world: Any, to: str, text: str) -> dict[str, Any]:
    """Send a text message (at most 160 characters) to a phone number written +<digits>."""
    gateways = [found for found in world.services.values() if found.kind == SmsGateway.kind]
    if len(gateways) != 1:
        raise ToolError("no_service", "this world needs exactly one sms service")
    answer = gateways[0].request("send", {"to": to, "text": text})
    return {"message_id": answer["id"], "to": to}


class SmsGateway(Service):
    """`send` queues a text; a number not written +<digits> or a text too long is refused."""

    kind = "sms"
    options_known = frozenset({"sender"})
    tools = (send_sms,)

    def handle(self, operation: str, payload: dict[str, Any]) -> dict[str, Any]:
        if operation != "send":
            raise ServiceError("sms.unknown_operation", f"sms has no operation {operation!r}")
        to, text = str(payload.get("to", "")), str(payload.get("text", ""))
        if not PHONE.fullmatch(to):
            raise ServiceError("sms.invalid_number", f"cannot text {to!r}: write +<digits>")
        if not text or len(text) > MAX_CHARACTERS:
            raise ServiceError("sms.invalid_text", f"a text has 1 to {MAX_CHARACTERS} characters")
        sender = str(self.options.get("sender", "ASSAY"))
        return {"id": self.next_id("sms"), "status": "queued", "to": to, "from": sender}
