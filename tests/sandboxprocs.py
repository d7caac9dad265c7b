"""Processes found by their command line, for the tests of sandbox lifetimes."""

from __future__ import annotations

import time
import uuid
from pathlib import Path


def unique_seconds() -> str:
    """A sleep length no other process on the machine uses, so the sleep can be found in /proc."""
    return f"{1000 + uuid.uuid4().int % 100000}.{uuid.uuid4().int % 1000:03d}"


def processes_running(*argv: str) -> list[int]:
    """The host pids of living processes whose whole command line is `argv`."""
    wanted = ("\0".join(argv) + "\0").encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "cmdline").read_bytes() == wanted and _state(entry) != "Z":
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def wait_until_no_process(*argv: str, within_s: float) -> bool:
    """True as soon as no process runs `argv`; False if one still does after `within_s`."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not processes_running(*argv):
            return True
        time.sleep(0.02)
    return not processes_running(*argv)


def wait_until_process(*argv: str, within_s: float = 5.0) -> list[int]:
    """The pids running `argv` once there are any: a command that put `sleep N &` in the
    background may return before its child has become `sleep`."""
    deadline = time.monotonic() + within_s
    while not (found := processes_running(*argv)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return found


def _state(entry: Path) -> str:
    return (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
