"""HL7 v2 over MLLP: one listener on 127.0.0.1 per benchmark run whose world has an HL7 interface.
Each framed message is an `hl7_send` call on the run's started task run, answered with the ACKs
it asks for (none, one, or a commit ACK then an application ACK in enhanced mode), each its own
MLLP block; a message that cannot be carried out (no started task run, a role without the tool)
is refused with an AR (a CE in enhanced mode) whose ERR segment, 207, says why."""

from __future__ import annotations

import asyncio
import socket
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from hl7.mllp import InvalidBlockError, start_hl7_server

from assay.api.sandbox_calls import call_on_started
from assay.served.auth import Caller
from assay.served.errors import ApiError
from assay.world.services.healthcare.hl7.acks import ack_message, answer_codes
from assay.world.services.healthcare.hl7.errors import APPLICATION_INTERNAL_ERROR, SEGMENT_SEQUENCE
from assay.world.services.healthcare.hl7.verdicts import refused

if TYPE_CHECKING:
    from assay.served.context import Context

HOST = "127.0.0.1"
LIMIT = 1 << 20  # the largest framed message, in bytes


class MllpListeners:
    """`first_port` 0: each run gets a free port; else the first free one from `first_port` up."""

    def __init__(self, context: Context, first_port: int):
        self.context = context
        self.next_port = first_port
        self.ports: dict[str, int] = {}
        self._servers: list[asyncio.AbstractServer] = []
        self._starting: set[asyncio.Task] = set()
        self.refusals = 0

    def open(self, run_id: str) -> str:
        """The run's listener, bound now (so its port is known) and served on the running loop."""
        if run_id not in self.ports:
            sock = self._bind()
            self.ports[run_id] = sock.getsockname()[1]
            task = asyncio.get_running_loop().create_task(self._start(run_id, sock))
            self._starting.add(task)
            task.add_done_callback(self._starting.discard)
        return f"mllp://{HOST}:{self.ports[run_id]}"

    def _bind(self) -> socket.socket:
        while True:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((HOST, self.next_port))
            except OSError:
                sock.close()
                if self.next_port == 0 or self.next_port >= 65535:
                    raise
                self.next_port += 1
                continue
            if self.next_port:
                self.next_port += 1
            sock.listen()
            sock.setblocking(False)
            return sock

    async def _start(self, run_id: str, sock: socket.socket) -> None:
        async def serve(reader, writer) -> None:  # type: ignore[no-untyped-def]
            try:
                while not writer.is_closing():
                    try:
                        block = await reader.readblock()
                    except (ValueError, InvalidBlockError) as error:  # too long, or not framed
                        why = f"not read: {error} (at most {LIMIT} bytes, framed by MLLP)"
                        unframed = isinstance(error, InvalidBlockError)
                        code = SEGMENT_SEQUENCE if unframed else APPLICATION_INTERNAL_ERROR
                        for ack in self.refusal("", why, code):
                            writer.writeblock(ack.encode())
                        await writer.drain()
                        break
                    for ack in self.answer(run_id, block.decode("utf-8", errors="replace")):
                        writer.writeblock(ack.encode())
                    await writer.drain()
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            finally:
                writer.close()

        self._servers.append(await start_hl7_server(serve, sock=sock, limit=LIMIT))

    def answer(self, run_id: str, message: str) -> list[str]:
        """The ACKs for one framed message sent to the run's listener, in sending order."""
        try:
            event = call_on_started(
                self.context, Caller(run_id=run_id), run_id, "hl7_send", {"message": message}
            )
        except ApiError as error:
            return self.refusal(message, error.message)
        if event.status == "OK" and isinstance(event.result, dict):
            return [str(ack) for ack in event.result["acks"]]
        return self.refusal(message, event.message or f"the send ended {event.status}")

    def refusal(self, message: str, why: str, code: int = APPLICATION_INTERNAL_ERROR) -> list[str]:
        """ACKs for a message the interface never took in: not recorded, so stamped by the
        machine, each with a control id of the listener's own."""
        verdict = refused(message, why, code)
        stamp = datetime.now(UTC).strftime("%Y%m%d%H%M%S")
        acks = []
        for answer in answer_codes(verdict):
            self.refusals += 1
            acks.append(
                ack_message(message, verdict, answer, stamp, f"REF{self.refusals:05d}", "2.5.1")
            )
        return acks

    async def close(self) -> None:
        for server in self._servers:
            server.close()
            await server.wait_closed()
        self._servers.clear()
