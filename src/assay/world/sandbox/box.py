"""A persistent bubblewrap sandbox per task run: start, exec (as Docker's `exec`), copy, digest, stop."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO

from assay.world.sandbox import holder as holders
from assay.world.sandbox import transfer
from assay.world.sandbox.changes import tree_digest
from assay.world.sandbox.command import ExecPlan, exec_argv
from assay.world.sandbox.host import default_masks
from assay.world.sandbox.identity import UnknownUser, resolve
from assay.world.sandbox.layout import Home, bwrap_args, overlay_setup, prepare

TIMED_OUT = 124
# How long past its own limit (and `timeout -k`) an exec may run before assay kills it itself.
EXEC_GRACE_S = 30.0


class SandboxError(Exception):
    """The sandbox could not be started, or a copy into or out of it failed; str() says why."""


@dataclass(frozen=True)
class ExecResult:
    """What one command did: its whole output, its exit code (124 past its time limit)."""

    stdout: bytes
    stderr: bytes
    exit_code: int
    timed_out: bool
    duration_s: float


class Sandbox:
    """A running sandbox; every process in it dies at `stop()`, or when the assay process dies."""

    def __init__(self, home: Path, workdir: str, holder: holders.Holder, *, readonly_root: bool):
        self.home = home
        self.logs = home / "logs"
        self.workdir = workdir
        self.readonly_root = readonly_root
        self.notes: list[str] = []
        self._holder: holders.Holder | None = holder
        self._pid1 = holder.pid1

    @classmethod
    def start(
        cls,
        home: Path,
        *,
        layers: Sequence[Path] = (),
        workdir: str = "/",
        masks: Sequence[Path] = (),
        overlay: bool = True,
    ) -> Sandbox:
        """Start a persistent sandbox in the empty dir `home`.

        layers: lower dirs stacked on the host root, the last one on top (cached build layers);
        masks: host paths hidden from inside (an empty tmpfs over each that exists);
        overlay=False forces the read-only-root fallback (tests and machines without overlay).
        """
        home = Path(os.path.abspath(home))
        if not workdir.startswith("/"):
            raise SandboxError(f"workdir must be an absolute path, not {workdir!r}")
        if home.exists() and (not home.is_dir() or any(home.iterdir())):
            raise SandboxError(f"sandbox home {home} is not an empty directory")
        hidden = [*masks, *default_masks()]
        refusal = None
        if overlay:
            try:
                return cls._launch(Home(home), workdir, layers, hidden, overlay=True)
            except holders.OverlayRefused as error:
                refusal = str(error)
                _empty(home)
        sandbox = cls._launch(Home(home), workdir, (), hidden, overlay=False)
        sandbox.notes.append("sandbox_readonly_root")
        if refusal:
            sandbox.notes.append(f"overlay_refused:{refusal}")
        if layers:
            sandbox.notes.append("layers_ignored")
        return sandbox

    @classmethod
    def _launch(
        cls, home: Home, workdir: str, layers: Sequence[Path], masks: list[Path], *, overlay: bool
    ) -> Sandbox:
        try:
            prepare(home, workdir, overlay=overlay)
            setup = overlay_setup(home, workdir, layers) if overlay else ""
            bwrap = bwrap_args(home, workdir=workdir, masks=masks, overlay=overlay)
            holder = holders.launch(home, setup, bwrap)
        except holders.OverlayRefused:
            raise
        except (holders.HolderFailed, OSError, ValueError) as error:
            raise SandboxError(f"sandbox did not start: {error}") from None
        return cls(home.root, workdir, holder, readonly_root=not overlay)

    def exec(
        self,
        command: str,
        *,
        timeout_s: float,
        user: str | int | None = None,
        env: Mapping[str, str] | None = None,
        network: bool = True,
        cwd: str | None = None,
        fsize_mb: int | None = None,
        cpus: int | None = None,
        writable: Sequence[str] = (),
    ) -> ExecResult:
        """Run `command` with bash inside the sandbox, from `env -i` plus a default PATH, HOME (the
        user's), LANG=C.UTF-8, TERM=dumb and `env`; network=False runs it with loopback only.

        The command reaches bash through a file, never argv, so its size is not limited by
        ARG_MAX; its own stdin is empty. Output is returned whole (the caller truncates).
        writable: read-only mounts (such as /logs/verifier) this command alone may write.
        """
        self._require_alive()
        started = time.monotonic()
        try:
            identity = resolve(self._root_path, user)
        except UnknownUser as error:
            return ExecResult(b"", f"{error}\n".encode(), 126, False, time.monotonic() - started)
        plan = ExecPlan(
            timeout_s,
            identity,
            env or {},
            network,
            cwd or self.workdir,
            fsize_mb,
            cpus,
            tuple(writable),
        )
        with _scratch(self.home) as script, _scratch(self.home) as out, _scratch(self.home) as err:
            os.fchmod(script.fileno(), 0o644)  # bash reopens it, maybe as another user
            script.write(command.encode("utf-8", "surrogateescape"))
            script.flush()
            script.seek(0)
            argv = exec_argv(self._pid1, plan, script.fileno(), sys.executable)
            process = _spawn(argv, script.fileno(), out, err)
            returncode = _wait(process, timeout_s + EXEC_GRACE_S)
            duration = time.monotonic() - started
            timed_out = returncode in (TIMED_OUT, 128 + signal.SIGKILL) and duration >= timeout_s
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
        return ExecResult(
            stdout, stderr, TIMED_OUT if timed_out else returncode, timed_out, duration
        )

    def put(self, source: Path, target: str, *, owner: str | None = None) -> None:
        """Copy a host file or a directory's contents to absolute path `target` inside (made if
        missing); `owner` chowns what was copied (user or user:group, resolved inside)."""
        self._require_alive()
        if not target.startswith("/"):
            raise SandboxError(f"put target must be an absolute path, not {target!r}")
        if not source.exists():
            raise SandboxError(f"put source {source} does not exist")
        try:
            identity = resolve(self._root_path, owner) if owner is not None else None
        except UnknownUser as error:
            raise SandboxError(f"put {source} to {target}: {error}") from None
        failure = transfer.put(self._pid1, source, target, identity)
        if failure:
            raise SandboxError(f"put {source} to {target} failed: {failure}")

    def get(self, path: str, target: Path) -> bool:
        """Copy absolute `path` (file or directory) out to host `target`; False when it is missing."""
        self._require_alive()
        if not path.startswith("/"):
            raise SandboxError(f"get path must be an absolute path, not {path!r}")
        outcome = transfer.get(self._pid1, path, target)
        if isinstance(outcome, str):
            raise SandboxError(f"get {path} to {target} failed: {outcome}")
        return outcome

    def digest(self) -> tuple[str, int]:
        """(sha256 hex, number of entries) over what changed against the lower layers: the upper
        dir's sorted entries with path, type, mode, size, link target and content hash — no times,
        so the same actions give the same digest. The read-only-root fallback digests its workdir."""
        home = Home(self.home)
        return tree_digest(home.workdir if self.readonly_root else home.upper)

    def stop(self) -> None:
        """Kill every process in the sandbox and unmount; idempotent. `home` stays for the caller."""
        holder, self._holder = self._holder, None
        if holder is None:
            return
        if holder.process.poll() is None:
            # pid 1 dying makes the kernel kill its whole pid namespace, nsenter'd commands too.
            _kill(self._pid1)
        holder.release()

    @property
    def alive(self) -> bool:
        """Whether the sandbox's pid 1 still runs (False after stop, or once it was killed)."""
        return (
            self._holder is not None
            and self._holder.process.poll() is None
            and _running(self._pid1)
        )

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def _root_path(self) -> Path:
        return Path(f"/proc/{self._pid1}/root")

    def _require_alive(self) -> None:
        if not self.alive:
            raise SandboxError(f"sandbox {self.home} is not running")


def _spawn(argv: list[str], script_fd: int, out: IO[bytes], err: IO[bytes]) -> subprocess.Popen:
    # Output goes to files, so a background process holding them open cannot keep exec waiting.
    return subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, pass_fds=(script_fd,)
    )


def _wait(process: subprocess.Popen, limit_s: float) -> int:
    try:
        returncode = process.wait(timeout=limit_s)
        return 128 - returncode if returncode < 0 else returncode  # as a shell reports a signal
    except subprocess.TimeoutExpired:
        process.kill()  # `timeout` itself hung (an unkillable process): a backstop only
        process.wait()
        return TIMED_OUT


def _scratch(home: Path) -> IO[bytes]:
    return tempfile.TemporaryFile(dir=home)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def _empty(home: Path) -> None:
    """Clear a home whose overlay start was refused, so the fallback starts from an empty dir."""
    for entry in home.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
