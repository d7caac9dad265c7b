"""Tools run offline: while one runs, its thread may not open a connection or resolve a name.

A world's services are simulated in process and record every request; a tool that reached a real
host would make the outcome depend on the outside. An audit hook (installed once per process, on
first use) refuses the socket operations that reach out — connect, sendto, sendmsg, name lookups —
in a thread that is running a tool; everything else, and every other thread, is untouched.
"""

from __future__ import annotations

import sys
import threading
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
    if event in REACHING_OUT and getattr(_inside, "depth", 0):
        target = args[1] if event == "socket.connect" and len(args) > 1 else args[0] if args else ""
        raise NetworkRefused(f"tools run offline: {event} to {target!r} refused")


class Offline:
    """Within `with offline():` the current thread cannot reach the network. One instance serves
    every thread (the depth is the thread's own); a class rather than a generator: it wraps every
    tool call."""

    def __enter__(self) -> None:
        global _installed
        if not _installed:
            with _lock:
                if not _installed:
                    sys.addaudithook(_hook)
                    _installed = True
        _inside.depth = getattr(_inside, "depth", 0) + 1

    def __exit__(self, *_: object) -> None:
        _inside.depth -= 1


_OFFLINE = Offline()


def offline() -> Offline:
    """Within this block, the current thread cannot reach the network."""
    return _OFFLINE
