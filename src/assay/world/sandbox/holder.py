"""The holder: a small shell process that mounts a sandbox's overlay, starts bwrap, and kills the
sandbox as soon as assay closes its end of a pipe or dies."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from dataclasses import dataclass

from assay.world.sandbox.layout import Home

READY_TIMEOUT_S = 30.0

# Runs as `sh -c HOLDER holder HOME SETUP BWRAP_ARGS…` in a private mount namespace; SETUP mounts.
# stdin is the read end of a pipe only assay can write: EOF means assay is done or dead.
# stdout says `ready` (from the sandbox's pid 1), `overlay-refused`, or nothing when bwrap failed.
HOLDER = r"""
home=$1 setup=$2
shift 2
if [ -n "$setup" ] && ! { eval "$setup"; } 2>"$home/overlay.log"; then
    echo overlay-refused
    exit 0
fi
# Keep the info file open: the caller may delete the home before this holder reads it.
: >"$home/info.json" && exec 5<"$home/info.json"
"$@" 3>"$home/info.json" 4>&1 5<&- </dev/null >"$home/sandbox.log" 2>&1 &
bwrap_pid=$!
exec >/dev/null
while read -r _; do :; done
pid=$(sed -n 's/.*"child-pid": *\([0-9][0-9]*\).*/\1/p' <&5)
# While bwrap lives it has not reaped its child, so the pid cannot name another process yet.
# Killing bwrap itself is the last resort: its child would then be left for the host's init to reap.
if [ -z "$pid" ]; then
    kill -KILL "$bwrap_pid" 2>/dev/null  # its child dies with it (--die-with-parent)
elif kill -0 "$bwrap_pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null
fi
wait
"""


HOLDER_ARGV = ("unshare", "-m", "--propagation", "private", "sh", "-c", HOLDER, "holder")


class HolderFailed(Exception):
    """The holder did not bring a sandbox up; str() says why."""


class OverlayRefused(HolderFailed):
    """The kernel refused the overlay mount."""


@dataclass
class Holder:
    """A running holder: its process, the pipe end that keeps it waiting, the sandbox's pid 1."""

    process: subprocess.Popen[bytes]
    lifeline: int
    pid1: int

    def release(self) -> None:
        """Close the lifeline (the holder then kills the sandbox) and wait for the holder to end."""
        if self.lifeline >= 0:
            os.close(self.lifeline)
            self.lifeline = -1
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def launch(home: Home, setup: str, bwrap: list[str]) -> Holder:
    """Start a holder for the sandbox in `home` and wait until the sandbox's pid 1 runs."""
    lifeline_read, lifeline = os.pipe()  # both ends close on exec; Popen hands only stdin over
    with open(home.root / "holder.log", "wb") as errors:
        process = subprocess.Popen(
            [*HOLDER_ARGV, str(home.root), setup, *bwrap],
            stdin=lifeline_read,
            stdout=subprocess.PIPE,
            stderr=errors,
            start_new_session=True,
        )
    os.close(lifeline_read)
    holder = Holder(process, lifeline, pid1=-1)
    assert process.stdout is not None
    with process.stdout:
        said = _first_line(process.stdout.fileno())
    if said == "ready":
        try:
            holder.pid1 = _child_pid(home)
        except HolderFailed:
            holder.release()
            raise
        return holder
    holder.release()
    if said == "overlay-refused":
        raise OverlayRefused(_log_line(home.root / "overlay.log", "overlay mount refused"))
    raise HolderFailed(_log_line(home.log, _log_line(home.root / "holder.log", "bwrap failed")))


def _first_line(fd: int) -> str:
    data = b""
    while not data.endswith(b"\n"):
        readable, _, _ = select.select([fd], [], [], READY_TIMEOUT_S)
        chunk = os.read(fd, 256) if readable else b""
        if not chunk:
            break
        data += chunk
    return data.decode(errors="replace").strip()


def _child_pid(home: Home) -> int:
    # bwrap writes the info as its child starts; allow the write a moment to land in any order.
    for _ in range(1000):
        try:
            return int(json.loads(home.info.read_text())["child-pid"])
        except (OSError, ValueError, KeyError):
            time.sleep(0.001)
    raise HolderFailed(f"bwrap wrote no child pid to {home.info}")


def _log_line(path: os.PathLike[str], fallback: str) -> str:
    try:
        with open(path, errors="replace") as log:
            lines = [line.strip() for line in log if line.strip()]
    except OSError:
        lines = []
    return lines[-1] if lines else fallback
