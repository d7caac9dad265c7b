"""The request body limit: a body over `max_body_bytes` is 413 `payload_too_large`, never read whole."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from assay.api.fhir_http import FHIR_PATH, too_large
from assay.served.errors import error_response

MAX_BODY_ENVIRONMENT = "ASSAY_MAX_BODY_BYTES"
DEFAULT_MAX_BODY_BYTES = 1024 * 1024


class BodyLimit:
    """ASGI middleware: refuses a body whose Content-Length is over the limit before reading any of
    it, and a chunked body as soon as what arrived passes the limit; the app gets the body whole."""

    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = content_length(scope)
        if declared is not None and declared > self.max_bytes:
            told = f"the request body is {declared} bytes; the limit is {self.max_bytes}"
            await self._refuse(scope, receive, send, told)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: let the app see it
                await self.app(scope, replay([message], receive), send)
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_bytes:
                told = f"the request body is over the limit of {self.max_bytes} bytes"
                await self._refuse(scope, receive, send, told)
                return
            if not message.get("more_body", False):
                break
        whole: Message = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, replay([whole], receive), send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, message: str) -> None:
        # the rest of the body is never read, so the connection cannot carry another request
        if FHIR_PATH.match(scope.get("path", "")):
            refusal = too_large(message)
        else:
            refusal = error_response(413, "payload_too_large", message, {"connection": "close"})
        await refusal(scope, receive, send)


def content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def replay(messages: list[Message], receive: Receive) -> Receive:
    """A receive that gives the messages already read, then whatever the server sends next."""
    pending = list(messages)

    async def replayed() -> Message:
        return pending.pop(0) if pending else await receive()

    return replayed
