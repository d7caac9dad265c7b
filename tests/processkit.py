"""Processes seen from the outside, through /proc: which are alive, which a process started, and
when a server one started is ready."""

from __future__ import annotations

import subprocess
import time
import urllib.request
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


READY_BOUND_S = 300.0  # only a server that hangs takes this long; a busy machine waits it out


def wait_ready(process: subprocess.Popen, url: str) -> None:
    """Poll the server's own `url` (its health route) until it answers 200; RuntimeError with
    the server's stderr as soon as the process ends, or if it hangs past READY_BOUND_S."""
    deadline = time.monotonic() + READY_BOUND_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    process.kill()
    _, stderr = process.communicate(timeout=10)
    raise RuntimeError(f"{url} did not come up (exit code {process.returncode}): {stderr}")
