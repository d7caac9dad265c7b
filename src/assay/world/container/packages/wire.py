"""One HTTP/1.1 connection served with h11: requests read in turn (kept alive, pipelined ones too),
each answered by a handler through a Reply that streams its body."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import h11

MAX_HEAD = 16 * 1024
IDLE_TIMEOUT_S = 60.0  # a kept-alive connection with no request for this long is closed
READ = 65536
PHRASES = {
    200: "OK",
    301: "Moved Permanently",
    304: "Not Modified",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


@dataclass(frozen=True)
class Request:
    """A request as the client sent it: the target is origin-form (`/pypi/…`) or, sent to a proxy,
    absolute (`http://deb.debian.org/…`); header names are lower case."""

    method: str
    target: str
    headers: dict[str, str]


class Reply:
    """The response to one request: `start`, `send` as often as needed, `end`."""

    def __init__(self, connection: h11.Connection, writer: asyncio.StreamWriter, head_only: bool):
        self._connection, self._writer, self._head_only = connection, writer, head_only
        self.started = self.ended = False

    async def start(self, status: int, headers: list[tuple[str, str]]) -> None:
        self.started = True
        reason = PHRASES.get(status, "Response").encode()
        await self._put(h11.Response(status_code=status, headers=headers, reason=reason))

    async def send(self, data: bytes) -> None:
        if data and not self._head_only:
            await self._put(h11.Data(data=data))

    async def end(self) -> None:
        await self._put(h11.EndOfMessage())
        self.ended = True

    async def whole(self, status: int, body: bytes, content_type: str = "text/plain") -> None:
        """A whole response at once."""
        headers = [("Content-Type", content_type), ("Content-Length", str(len(body)))]
        await self.start(status, headers)
        await self.send(body)
        await self.end()

    async def _put(self, event: h11.Event) -> None:
        data = self._connection.send(event)
        if data:
            self._writer.write(data)
            await self._writer.drain()


Handler = Callable[[Request, Reply], Awaitable[None]]


async def serve(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, handle: Handler
) -> None:
    """Answer the connection's requests until it closes; a handler that fails before it started
    its response answers 502 with the reason, one that fails after it closes the connection."""
    connection = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
    try:
        while True:
            request = await _next_request(connection, reader, writer)
            if request is None:
                return
            reply = Reply(connection, writer, head_only=request.method == "HEAD")
            try:
                await handle(request, reply)
            except (OSError, h11.LocalProtocolError):
                return
            except Exception as error:  # an upstream that failed: say so, never hang the client
                if reply.started:
                    return
                await reply.whole(502, f"assay package cache: {error}\n".encode())
            if not reply.ended or connection.our_state is not h11.DONE:
                return
            try:
                connection.start_next_cycle()
            except h11.LocalProtocolError:
                return
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def _next_request(
    connection: h11.Connection, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> Request | None:
    """The next request, its body read and dropped; None when the client is done or misbehaved."""
    request: h11.Request | None = None
    while True:
        try:
            event = connection.next_event()
        except h11.RemoteProtocolError:
            with contextlib.suppress(h11.LocalProtocolError, OSError):
                writer.write(connection.send(h11.Response(status_code=400, headers=[])) or b"")
            return None
        if event is h11.NEED_DATA:
            try:
                data = await asyncio.wait_for(reader.read(READ), IDLE_TIMEOUT_S)
            except (TimeoutError, OSError):
                return None
            connection.receive_data(data)
        elif isinstance(event, h11.Request):
            request = event
        elif isinstance(event, h11.EndOfMessage) and request is not None:
            headers = {
                name.decode().lower(): value.decode("latin-1") for name, value in request.headers
            }
            return Request(request.method.decode(), request.target.decode("latin-1"), headers)
        elif isinstance(event, h11.ConnectionClosed) or event is h11.PAUSED:
            return None
