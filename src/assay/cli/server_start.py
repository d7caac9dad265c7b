"""A server's start as `assay serve` and `assay openenv` run it: a deadline for the start, uvicorn,
and a file written once the server listens, so that whoever started it waits for readiness rather
than for a fixed time."""

from __future__ import annotations

import _thread
import json
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

ReadyFileOption = Annotated[
    Path | None,
    typer.Option(
        "--ready-file",
        help='Once the server listens, write {"url": ..., "port": ..., "pid": ...} here (JSON, '
        "whole or not at all); removed as the server stops. With --port 0, the port it got.",
    ),
]
StartTimeoutOption = Annotated[
    float | None,
    typer.Option(
        "--start-timeout",
        min=0.001,
        help="Seconds the server may take to start listening, loading its worlds included; "
        "past them it stops with exit code 1 (default: no limit).",
    ),
]


class StartDeadline:
    """A limit on a server's start, from the command's own start: past it, the main thread is
    interrupted and the command stops with one line and exit code 1.

    `watching(command)` wraps the start: the timer starts inside it, since starting a thread can
    take longer than a short limit on a loaded machine, and whatever the interrupt turns into
    where it lands (a KeyboardInterrupt, or an error of a library whose native code it reached,
    such as pydantic-core's SchemaError while a model is built) reads as the missed deadline. An
    interrupt that code on the way swallowed reads so too: the server, finding the deadline
    passed as it starts listening, stops at once (`run_server`), and the watch ends expired."""

    def __init__(self, seconds: float | None):
        self.seconds, self.expired = seconds, False
        self._began = time.monotonic()
        self._lock = threading.Lock()
        self._met = False
        self._timer: threading.Timer | None = None

    @contextmanager
    def watching(self, command: str) -> Iterator[None]:
        try:
            self._start()
            yield
        except BaseException:
            if self.expired:
                raise self.missed(command) from None
            raise
        if self.expired:  # the interrupt was swallowed where it landed; the server stopped itself
            raise self.missed(command)

    def met(self) -> bool:
        """The server is ready: the deadline no longer runs. False if it had already passed."""
        with self._lock:
            self._met = True
            if self._timer is not None:
                self._timer.cancel()
            return not self.expired

    def missed(self, command: str) -> typer.Exit:
        typer.echo(
            f"error: {command}: not listening within --start-timeout {self.seconds:g} s", err=True
        )
        return typer.Exit(1)

    def _start(self) -> None:
        if self.seconds is None:
            return
        left = max(0.0, self.seconds - (time.monotonic() - self._began))
        self._timer = threading.Timer(left, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _expire(self) -> None:
        with self._lock:
            if self._met:  # met while this timer waited for the lock
                return
            self.expired = True
        _thread.interrupt_main()


def run_server(
    app: Any,
    host: str,
    port: int,
    *,
    ready_file: Path | None,
    deadline: StartDeadline,
    announce: str,
) -> None:
    """Serve `app` on uvicorn until stopped; once it listens, meet `deadline`, write `ready_file`
    and say `announce` on stderr with `{url}` replaced by where it listens (the port it got)."""
    import uvicorn

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.should_exit:
                return
            if not deadline.met():  # past it, its interrupt swallowed on the way: stop at once
                self.should_exit = True
                return
            bound = self.servers[0].sockets[0].getsockname()[1]
            if ready_file is not None:
                _write_ready(ready_file, host, bound)
            typer.echo(announce.replace("{url}", f"http://{host}:{bound}"), err=True)

    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False)
    try:
        Server(config).run()
    finally:
        if ready_file is not None:
            ready_file.unlink(missing_ok=True)


def _write_ready(path: Path, host: str, port: int) -> None:
    """Write the file whole under another name, then rename it: a reader never sees half."""
    answer = {"url": f"http://{host}:{port}", "port": port, "pid": os.getpid()}
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(json.dumps(answer) + "\n")
    partial.replace(path)
