"""A plain-HTTP model endpoint relayed onto a sandbox's own loopback: the agent in it reaches that
one host and port at 127.0.0.1, and nothing else through it (the endpoint may be the host's own)."""

from __future__ import annotations

import contextlib
import socket
import threading
from urllib.parse import urlsplit, urlunsplit

from assay.world.container.network import listen_inside

CONNECT_TIMEOUT_S = 10.0
CHUNK = 65536


class EndpointRelay:
    """Listens in the namespace of `pid`; each connection is joined to the endpoint's host and port."""

    def __init__(self, pid: int, endpoint: str):
        parts = urlsplit(endpoint)
        self.target = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.listener = listen_inside(pid)
        port = self.listener.getsockname()[1]
        # The URL the agent uses: the endpoint's path, on the relay's port.
        self.url = urlunsplit(("http", f"127.0.0.1:{port}", parts.path, parts.query, ""))
        self._closed = threading.Event()
        threading.Thread(target=self._accept, name=f"assay-endpoint-{pid}", daemon=True).start()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                inside, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._join, args=(inside,), daemon=True).start()

    def _join(self, inside: socket.socket) -> None:
        try:
            outside = socket.create_connection(self.target, timeout=CONNECT_TIMEOUT_S)
        except OSError:
            inside.close()  # the agent sees a refused request, as from a server that is down
            return
        outside.settimeout(None)
        back = threading.Thread(target=_pump, args=(outside, inside), daemon=True)
        back.start()
        _pump(inside, outside)
        back.join()
        inside.close()
        outside.close()

    def close(self) -> None:
        self._closed.set()
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy until `source` ends, then end `sink`'s writing side so its reader sees the end too."""
    try:
        while data := source.recv(CHUNK):
            sink.sendall(data)
    except OSError:
        pass
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)
