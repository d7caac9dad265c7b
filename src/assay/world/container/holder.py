"""Starting a sandbox's keeper (keeper.py) and talking to it: the user namespace's id maps written
from the host, the cgroup joined before anything runs inside, one socket per request."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from assay.world.container.idmap import IdMap

KEEPER = Path(__file__).with_name("keeper.py")
MESSAGE = 1 << 20
START_TIMEOUT_S = 30.0
RELEASE_TIMEOUT_S = 10.0


class HolderFailed(Exception):
    """The keeper did not bring a sandbox up, or stopped answering; str() says why."""


@dataclass
class Holder:
    """A running keeper: its pid, the control socket, the host pid of the sandbox's pid 1."""

    pid: int
    control: socket.socket
    pid1: int
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def request(self, message: dict, fds: Sequence[int] = (), *, timeout_s: float | None) -> dict:
        """Send one request with its file descriptors; its answer (HolderFailed when none came)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with ours:
            try:
                with self._lock:
                    socket.send_fds(
                        self.control, [json.dumps(message).encode()], [theirs.fileno(), *fds]
                    )
            except OSError as error:
                raise HolderFailed(f"the sandbox is not running: {error}") from None
            finally:
                theirs.close()
            ours.settimeout(timeout_s)
            try:
                answer = ours.recv(MESSAGE)
            except TimeoutError:
                raise HolderFailed("the sandbox did not answer in time") from None
        if not answer:
            raise HolderFailed("the sandbox ended the request without an answer")
        return json.loads(answer)

    def release(self) -> None:
        """Close the control socket (the keeper then kills the sandbox) and wait for it to end."""
        self.control.close()
        try:
            descriptor = os.pidfd_open(self.pid)
        except ProcessLookupError:
            return
        try:
            if not select.select([descriptor], [], [], RELEASE_TIMEOUT_S)[0]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
        finally:
            os.close(descriptor)

    @property
    def alive(self) -> bool:
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        return True


def launch(
    config: dict, ids: IdMap, log: Path, joined: Callable[[int], None] = lambda pid: None
) -> Holder:
    """Start a keeper and wait until the sandbox's pid 1 runs.

    joined: called with the keeper's pid once its user namespace exists and before anything runs
    in it (to put it in the sandbox's cgroup).
    """
    control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with open(log, "wb") as errors, theirs:
        pid = _ZYGOTE.fork(theirs.fileno(), errors.fileno())
    holder = Holder(pid, control, pid1=-1)
    try:
        control.settimeout(START_TIMEOUT_S)
        control.send(json.dumps(config).encode())
        pid = _expect(control, "unshared", log)
        _write_maps(pid, ids)
        joined(pid)
        control.send(json.dumps({"mapped": True}).encode())
        holder.pid1 = _expect(control, "ready", log)
        control.settimeout(None)
    except (OSError, HolderFailed) as error:
        holder.release()
        raise HolderFailed(str(error)) from None
    return holder


class _Zygote:
    """One keeper.py process per assay process, started on first use, that forks the keepers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._owner = -1

    def fork(self, control_fd: int, log_fd: int) -> int:
        """A new keeper's pid; a zygote that died (or was inherited by a fork) is started again once."""
        with self._lock:
            failure = "no answer"
            for _ in range(2):
                zygote = self._running()
                try:
                    socket.send_fds(zygote, [b"keep"], [control_fd, log_fd])
                    zygote.settimeout(START_TIMEOUT_S)
                    answer = zygote.recv(MESSAGE)
                except OSError as error:
                    answer, failure = b"", str(error)
                if answer:
                    return int(json.loads(answer)["pid"])
                self._stop()
        raise HolderFailed(f"the keeper could not be started: {failure}")

    def _running(self) -> socket.socket:
        alive = self._process is not None and self._process.poll() is None
        if self._socket is not None and alive and self._owner == os.getpid():
            return self._socket
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-S", str(KEEPER), str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                start_new_session=True,
            )
        self._socket, self._owner = ours, os.getpid()
        return ours

    def _stop(self) -> None:
        if self._socket is not None:
            self._socket.close()
        self._socket = None


_ZYGOTE = _Zygote()


def _write_maps(pid: int, ids: IdMap) -> None:
    # Written from the host, as its root: a process may not map a range of ids into its own namespace.
    with open(f"/proc/{pid}/uid_map", "w") as uid_map:
        uid_map.write(ids.uid_map)
    with open(f"/proc/{pid}/gid_map", "w") as gid_map:
        gid_map.write(ids.gid_map)


def _expect(control: socket.socket, key: str, log: Path) -> int:
    try:
        message = json.loads(control.recv(MESSAGE) or b"{}")
    except TimeoutError:
        raise HolderFailed("the sandbox did not start in time") from None
    if key in message:
        return int(message[key])
    raise HolderFailed(message.get("error") or _last_line(log, "the sandbox's keeper exited"))


def _last_line(path: Path, fallback: str) -> str:
    try:
        lines = [line.strip() for line in path.read_text(errors="replace").splitlines()]
    except OSError:
        return fallback
    lines = [line for line in lines if line]
    return lines[-1] if lines else fallback
