"""An email service: `send` puts a message in the outbox; nothing leaves the world."""

from __future__ import annotations

from typing import Any

from assay.errors import ServiceError
from assay.world.services.base import Service
from assay.world.services.kinds import service_kind


@service_kind
class Email(Service):
    kind = "email"
    options_known = frozenset()

    def handle(self, operation: str, payload: dict[str, Any]) -> dict[str, Any]:
        if operation != "send":
            raise ServiceError("email.unknown_operation", f"email has no operation {operation!r}")
        to = str(payload.get("to", ""))
        if "@" not in to:
            raise ServiceError("email.invalid_recipient", f"cannot send to {to!r}")
        return {"id": self.next_id("msg"), "status": "queued", "to": to}
