"""The fast lane: `start`, `act` and `complete`, the requests every task run makes, answered in front
of FastAPI (its middleware, telemetry check, dependencies, body parsing, routing through every route),
which cost more than the act itself. A request that fails authentication or validation, or whose
body is over the limit or comes in pieces, goes the ordinary way instead, so that every error is
the one the routes give and the OpenAPI document describes."""

from __future__ import annotations

import re
from typing import Any

from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from assay.api.limits import content_length, replay
from assay.errors import SpecError, UsageError
from assay.served import task_runs
from assay.served.context import Context
from assay.served.errors import ApiError, error_response
from assay.served.wire import Act, Complete, RejectedBody

HOT = re.compile(r"/v1/task-runs/([^/]+)/(start|act|complete)")
# the request cycle of uvicorn's httptools protocol, whose `transport` the lane's answers write to
HTTPTOOLS_CYCLE = "uvicorn.protocols.http.httptools_impl"


def model_response(model: BaseModel, *, exclude_none: bool = False, status: int = 200) -> Response:
    """The model serialised once, straight to the wire (the response model documents its shape)."""
    text = model.model_dump_json(by_alias=True, exclude_none=exclude_none)
    return Response(text, status_code=status, media_type="application/json")


def rejected_response(error: task_runs.Rejected) -> JSONResponse:
    """422 with the observation that records the refused call."""
    body = RejectedBody.model_validate(
        {"error": {"code": error.code, "message": error.message}, "observation": error.observation}
    )
    return JSONResponse(body.model_dump(mode="json", by_alias=True, exclude_none=True), 422)


class Answer:
    """A 200 whose JSON body is serialised already: what a Starlette Response sends, less its work."""

    __slots__ = ("body",)

    def __init__(self, body: bytes):
        self.body = body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        length = str(len(self.body)).encode("latin-1")
        headers = [(b"content-length", length), (b"content-type", b"application/json")]
        cycle = getattr(send, "__self__", None)
        if type(cycle).__module__ != HTTPTOOLS_CYCLE or not hasattr(cycle, "transport"):
            # another server (or a uvicorn that keeps its transport elsewhere): its own writes
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": self.body})
            return
        # uvicorn writes the head and the body to the socket apart, two system calls a response
        # (a sixth of the server's time): here its head is held and written with the body
        transport = cycle.transport
        cycle.transport = OneWrite(transport)
        try:
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": self.body})
        finally:
            cycle.transport = transport


class OneWrite:
    """A transport that holds the first write (a response's head) and sends it with the second
    (its body) in one; anything else goes to the transport itself, in order."""

    __slots__ = ("_head", "_transport")

    def __init__(self, transport: Any):
        self._transport = transport
        self._head: bytes | None = None

    def write(self, data: bytes) -> None:
        if self._head is None:
            self._head = data
            return
        self._transport.write(self._head + data)
        self._head = b""

    def __getattr__(self, name: str) -> Any:  # close, is_closing, ...: after the held head
        if self._head:
            self._transport.write(self._head)
            self._head = b""
        return getattr(self._transport, name)


class FastLane:
    """ASGI middleware in front of the app; `max_bytes` is the app's body limit."""

    def __init__(self, app: ASGIApp, context: Context, max_bytes: int):
        self.app = app
        self.context = context
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        hot = scope["type"] == "http" and scope["method"] == "POST" and HOT.fullmatch(scope["path"])
        declared = content_length(scope) if hot else None
        if not hot or (declared is not None and declared > self.max_bytes):
            await self.app(scope, receive, send)
            return
        message = await receive()
        response = None
        body = message.get("body", b"")
        whole = message["type"] == "http.request" and not message.get("more_body", False)
        if whole and len(body) <= self.max_bytes:
            response = self._answer(hot[1], hot[2], scope, body)
        if response is None:
            await self.app(scope, replay([message], receive), send)
        else:
            await response(scope, receive, send)

    def _answer(
        self, task_run_id: str, verb: str, scope: Scope, body: bytes
    ) -> Answer | Response | None:
        """The response, or None for the ordinary way (nothing has happened yet)."""
        headers = _headers(scope)
        try:
            caller = self.context.auth.caller(headers.get(b"authorization", b"").decode("latin-1"))
        except ApiError:
            return None
        parsed: Any = None
        if verb != "start":
            if headers.get(b"content-type", b"").split(b";")[0].strip() != b"application/json":
                return None
            try:
                parsed = (Act if verb == "act" else Complete).model_validate_json(body)
            except ValidationError:
                return None
        try:
            return _run(self.context, caller, task_run_id, verb, parsed)
        except task_runs.Rejected as error:
            return rejected_response(error)
        except ApiError as error:
            return error_response(error.status, error.code, error.message)
        except (SpecError, UsageError) as error:
            return error_response(422, "invalid_request", str(error))


def _run(context: Context, caller: Any, task_run_id: str, verb: str, parsed: Any) -> Answer:
    if verb == "start":
        return _json(task_runs.start(context, caller, task_run_id), exclude_none=True)
    if verb == "act":
        return _json(task_runs.act(context, caller, task_run_id, parsed), exclude_none=True)
    return _json(task_runs.complete(context, caller, task_run_id, parsed.output))


def _json(model: BaseModel, *, exclude_none: bool = False) -> Answer:
    """As `model_response`, straight to bytes."""
    serializer = model.__pydantic_serializer__
    return Answer(serializer.to_json(model, by_alias=True, exclude_none=exclude_none))


def _headers(scope: Scope) -> dict[bytes, bytes]:
    """The request's headers by lowercase name, the first of each (as Starlette reads them)."""
    found: dict[bytes, bytes] = {}
    for name, value in scope["headers"]:
        found.setdefault(name, value)
    return found
