"""Processes seen from the outside, through /proc: which are alive, which a process started."""

from __future__ import annotations

import time
from contextlib import suppress
from pathlib import Path


def children(pid: int) -> set[int]:
    """The living processes whose parent is `pid` (read from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _state(int(entry.name)) not in (None, "Z"):
            with suppress(OSError, IndexError):
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.add(int(entry.name))
    return found


def _state(pid: int) -> str | None:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def wait_until_gone(pids: set[int]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if all(_state(pid) in (None, "Z") for pid in pids):
            return
        time.sleep(0.05)
    raise AssertionError(f"processes {sorted(pids)} outlived the run they worked for")
