"""The package cache's server: one event loop per assay process, in a thread of its own, serving
the listening socket each sandbox gets on its own loopback; its faces share one store on disk and
one pool of upstream connections."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass

import httpx

from assay.world.container.packages import wire
from assay.world.container.packages.apt import Apt
from assay.world.container.packages.pypi import PyPI
from assay.world.container.packages.store import Store, packages_dir, store_at
from assay.world.container.proxy import Allowlist, IpAddress

MAX_CONNECTIONS = 256  # at once, per sandbox
TIMEOUT = httpx.Timeout(30.0, connect=10.0)
PYPI_HOSTS = ("pypi.org", "files.pythonhosted.org")


@dataclass(frozen=True)
class Offer:
    """What one sandbox's network got: the URL its loopback reaches the cache at, and its faces."""

    url: str
    pypi: bool
    apt: bool
    _server: asyncio.base_events.Server
    _loop: asyncio.AbstractEventLoop

    @property
    def env(self) -> dict[str, str]:
        """pip's and uv's index; uv's UV_INDEX_URL, so that a task's own UV_DEFAULT_INDEX wins."""
        if not self.pypi:
            return {}
        index = f"{self.url}/pypi/simple/"
        return {"PIP_INDEX_URL": index, "UV_INDEX_URL": index}

    @property
    def apt_conf(self) -> str:
        return f'Acquire::http::Proxy "{self.url}/";\n' if self.apt else ""

    def close(self) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone with its process
            self._loop.call_soon_threadsafe(self._server.close)


class CacheServer:
    """The loop, the store and the upstream client of this process."""

    def __init__(self, host_addresses: Callable[[], Collection[IpAddress]]) -> None:
        self.host_addresses = host_addresses
        self.loop = asyncio.new_event_loop()
        self.pid = os.getpid()
        ready = threading.Event()
        self.thread = threading.Thread(
            target=self._run, args=(ready,), name="assay-package-cache", daemon=True
        )
        self.thread.start()
        ready.wait()

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        limits = httpx.Limits(max_connections=64, max_keepalive_connections=32)
        self.client = httpx.AsyncClient(timeout=TIMEOUT, limits=limits)
        self.pypi = PyPI(self.client)
        self.apt = Apt(self.client, self.host_addresses)
        ready.set()
        self.loop.run_forever()

    def offer(self, listener: socket.socket, allowlist: Allowlist | None) -> Offer:
        """Serve `listener` (bound and listening in a sandbox's namespace) from now on. With an
        allowlist, the apt face fetches only from its hosts and the PyPI face is offered only
        when it admits both of PyPI's. The store is the one under assay's cache directory now."""
        store = store_at(packages_dir())
        pypi = allowlist is None or all(allowlist.admits(host) for host in PYPI_HOSTS)
        open_connections = [0]

        async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if open_connections[0] >= MAX_CONNECTIONS:
                writer.close()
                return
            open_connections[0] += 1
            try:
                await wire.serve(
                    reader, writer, lambda r, a: self._answer(r, a, store, allowlist, pypi)
                )
            finally:
                open_connections[0] -= 1

        starting = asyncio.start_server(connected, sock=listener)
        server = asyncio.run_coroutine_threadsafe(starting, self.loop).result(10)
        port = listener.getsockname()[1]
        return Offer(f"http://127.0.0.1:{port}", pypi, True, server, self.loop)

    async def _answer(
        self,
        request: wire.Request,
        reply: wire.Reply,
        store: Store,
        allowlist: Allowlist | None,
        pypi: bool,
    ) -> None:
        if request.method not in ("GET", "HEAD"):
            await reply.whole(405, b"assay's package cache answers GET and HEAD only\n")
        elif request.target.startswith("http://"):
            await self.apt.handle(request, reply, allowlist, store)
        elif request.target.startswith("/pypi/") and pypi:
            await self.pypi.handle(request, reply, store)
        else:
            await reply.whole(404, b"not a path of assay's package cache\n")


_server: CacheServer | None = None
_lock = threading.Lock()


def cache_server(host_addresses: Callable[[], Collection[IpAddress]]) -> CacheServer:
    """This process's server, started on first use (again in a forked child); `host_addresses`
    gives the host's own addresses, which the apt face never fetches from."""
    global _server
    with _lock:
        if _server is None or _server.pid != os.getpid():
            _server = CacheServer(host_addresses)
        return _server
