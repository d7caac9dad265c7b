"""Tools run offline: while one runs, its thread may not open a connection or resolve a name.

A world's services are simulated in process and record every request; a tool that reached a real
host would make the outcome depend on the outside. An audit hook (installed once per process, on
first use) refuses the socket operations that reach out — connect, sendto, sendmsg, name lookups —
in a thread that is running a tool; everything else, and every other thread, is untouched.
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

REACHING_OUT = frozenset(
    {
        "socket.connect",
        "socket.sendto",
        "socket.sendmsg",
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "socket.gethostbyaddr",
        "socket.getnameinfo",
    }
)

_inside = threading.local()
_installed = False
_lock = threading.Lock()


class NetworkRefused(PermissionError):
    """A tool tried to reach the network."""


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event in REACHING_OUT and getattr(_inside, "depth", 0) and not _local(event, args):
        target = args[1] if event == "socket.connect" and len(args) > 1 else args[0] if args else ""
        raise NetworkRefused(f"tools run offline: {event} to {target!r} refused")


def _local(event: str, args: tuple[Any, ...]) -> bool:
    """A Unix socket (a sandbox's keeper, say) reaches no host."""
    on_socket = event in ("socket.connect", "socket.sendto", "socket.sendmsg")
    return on_socket and bool(args) and getattr(args[0], "family", None) == socket.AF_UNIX


@contextmanager
def offline() -> Iterator[None]:
    """Within this block, the current thread cannot reach the network."""
    global _installed
    if not _installed:
        with _lock:
            if not _installed:
                sys.addaudithook(_hook)
                _installed = True
    _inside.depth = getattr(_inside, "depth", 0) + 1
    try:
        yield
    finally:
        _inside.depth -= 1
