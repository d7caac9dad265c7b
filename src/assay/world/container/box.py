"""A persistent sandbox per task run: start, exec (as Docker's `exec`), copy, digest, stop."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from assay.world.container import confine, transfer
from assay.world.container import holder as holders
from assay.world.container.changes import tree_digest
from assay.world.container.command import environment
from assay.world.container.idmap import sandbox_ids
from assay.world.container.layout import Home, Plan, keeper_config, prepare

TIMED_OUT = 124
# How long past its own limit (and the keeper's SIGTERM-to-SIGKILL wait) an exec may take before
# assay gives up on the answer.
EXEC_GRACE_S = 30.0
NETWORKS = ("no-network", "public", "allowlist")


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


@dataclass(frozen=True)
class Options:
    """How a sandbox is started, besides its home and its root's layers."""

    workdir: str = "/"
    network: str = "no-network"
    allowed_hosts: Sequence[str] = ()
    limits: confine.Limits = field(default_factory=confine.Limits)
    storage_mb: int | None = None  # the whole writable layer, not one file
    verifier: bool = False
    fresh_layer: bool = True
    binds: Sequence[tuple[Path, str]] = ()


class Sandbox:
    """A running sandbox; every process in it dies at `stop()`, or when the assay process dies."""

    def __init__(
        self, home: Path, options: Options, holder: holders.Holder, confinement: confine.Confinement
    ):
        self.home = home
        self.logs = Home(home).logs
        self.workdir = options.workdir
        self.notes: list[str] = list(confinement.notes)
        self._holder: holders.Holder | None = holder
        self._guard = confinement
        self.pid1 = holder.pid1

    @classmethod
    def start(
        cls,
        home: Path,
        *,
        base: Path | None = None,
        layers: Sequence[Path] = (),
        options: Options | None = None,
        **settings: object,
    ) -> Sandbox:
        """Start a sandbox in `home` over `base` (the default base root when None) and `layers`.

        `settings` are the fields of Options (workdir, network, limits, …) when `options` is None.
        A home that already holds a layer is started again over it with fresh_layer=False.
        """
        options = options or Options(**settings)  # type: ignore[arg-type]
        home = Path(os.path.abspath(home))
        if not options.workdir.startswith("/"):
            raise SandboxError(f"workdir must be an absolute path, not {options.workdir!r}")
        if options.network not in NETWORKS:
            raise SandboxError(
                f"network must be one of {', '.join(NETWORKS)}, not {options.network!r}"
            )
        if options.fresh_layer and home.exists() and (not home.is_dir() or any(home.iterdir())):
            raise SandboxError(f"sandbox home {home} is not an empty directory")
        ids = sandbox_ids()
        guard = confine.Confinement(home, options)
        try:
            root = base if base is not None else confine.default_base()
            guard.prepare_layer(ids, fresh=options.fresh_layer)
            prepare(Home(home), ids, fresh_layer=options.fresh_layer, verifier=options.verifier)
            plan = Plan(
                base=root,
                layers=tuple(layers),
                workdir=options.workdir,
                verifier=options.verifier,
                nameservers=() if options.network != "no-network" else None,
                package_cache=options.network != "no-network",
                binds=tuple(options.binds),
            )
            config = keeper_config(Home(home), plan, guard.seccomp())
            holder = holders.launch(config, ids, home / "keeper.log", guard.join)
        except (holders.HolderFailed, confine.ConfinementFailed, OSError, ValueError) as error:
            guard.close()
            raise SandboxError(f"sandbox did not start: {error}") from None
        try:
            guard.connect(holder.pid1, Home(home))
        except confine.ConfinementFailed as error:
            holder.release()
            guard.close()
            raise SandboxError(f"sandbox did not start: {error}") from None
        return cls(home, options, holder, guard)

    def exec(
        self,
        command: str,
        *,
        timeout_s: float,
        user: str | int | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> ExecResult:
        """Run `command` with bash inside the sandbox, from an empty environment plus a default
        PATH, HOME (the user's), LANG=C.UTF-8, TERM=dumb, the network's own variables and `env`.

        The command reaches bash through a file, never argv, so its size is not limited by
        ARG_MAX; its own stdin is empty. Output is returned whole (the caller truncates).
        """
        holder = self._require_alive()
        started = time.monotonic()
        with _scratch(self.home) as script, _scratch(self.home) as out, _scratch(self.home) as err:
            os.fchmod(script.fileno(), 0o644)  # bash reopens it as the command's own user
            script.write(command.encode("utf-8", "surrogateescape"))
            script.flush()
            script.seek(0)
            request = {
                "op": "exec",
                "user": None if user is None else str(user),
                "env": environment({**self._guard.env, **(env or {})}),
                "cwd": cwd or self.workdir,
                "timeout_s": timeout_s,
                "rlimits": self._guard.rlimits,
                "cpus": self._guard.cpu_list,
            }
            fds = [script.fileno(), out.fileno(), err.fileno()]
            try:
                reply = holder.request(request, fds, timeout_s=timeout_s + EXEC_GRACE_S)
            except holders.HolderFailed as error:
                raise SandboxError(f"exec failed: {error}") from None
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
        if "error" in reply:
            raise SandboxError(f"exec failed: {reply['error']}")
        duration = time.monotonic() - started
        return ExecResult(stdout, stderr, reply["exit_code"], reply["timed_out"], duration)

    def put(
        self,
        source: Path,
        target: str,
        *,
        owner: str | None = None,
        chmod: str | None = None,
        skip: Collection[Path] = (),
    ) -> None:
        """Copy a host file or a directory's contents to absolute path `target` inside (made if
        missing); `owner` chowns what was copied (user or user:group, resolved inside), `chmod`
        (octal) is its mode, and the host paths in `skip` are left out with what is under them."""
        holder = self._require_alive()
        if not target.startswith("/"):
            raise SandboxError(f"put target must be an absolute path, not {target!r}")
        if not source.exists():
            raise SandboxError(f"put source {source} does not exist")
        failure = transfer.put(holder, source, target, owner, chmod, skip)
        if failure:
            raise SandboxError(f"put {source} to {target} failed: {failure}")

    def put_archive(self, archive: Path, target: str, *, owner: str | None = None) -> None:
        """Unpack a host tar archive (plain, gzip, bzip2 or xz) into directory `target` inside."""
        failure = transfer.put_archive(self._require_alive(), archive, target, owner)
        if failure:
            raise SandboxError(f"unpack {archive} into {target} failed: {failure}")

    def glob(self, pattern: str) -> list[tuple[str, str, bool]]:
        """What an absolute pattern matches inside: (path, path with links followed, is a
        directory) each, sorted; a path without `*?[` matches itself when it exists."""
        reply = self._request({"op": "glob", "pattern": pattern}, f"glob {pattern}")
        return [(path, real, is_dir) for path, real, is_dir in reply["matches"]]

    def copy_to(
        self, path: str, other: Sandbox, into: str, arcname: str, **options: str | None
    ) -> None:
        """Copy `path` into directory `into` of `other` as `arcname` (`.`: a directory's
        contents), owners and modes kept unless options give an `owner` or a `chmod`."""
        chosen = {name: value for name, value in options.items() if value is not None}
        failure = transfer.relay(
            self._require_alive(), path, arcname, other._require_alive(), into, chosen
        )
        if failure:
            raise SandboxError(f"copy {path} to {into} failed: {failure}")

    def get(self, path: str, target: Path) -> bool:
        """Copy absolute `path` (file or directory) out to host `target`; False when it is missing.
        Links are copied as links and never followed; FIFOs and devices are left out."""
        holder = self._require_alive()
        if not path.startswith("/"):
            raise SandboxError(f"get path must be an absolute path, not {path!r}")
        outcome = transfer.get(holder, path, target)
        if isinstance(outcome, str):
            raise SandboxError(f"get {path} to {target} failed: {outcome}")
        return outcome

    def remove(self, path: str) -> None:
        """Remove `path` inside (a tree, a file or a link; never what a link points to)."""
        self._request({"op": "remove", "path": path}, f"remove {path}")

    def digest(self) -> tuple[str, int]:
        """(sha256 hex, number of entries) over what changed against the lower layers: the upper
        dir's sorted entries with path, type, mode, size, link target and content hash — no times,
        so the same actions give the same digest."""
        return tree_digest(Home(self.home).upper)

    def stop(self, *, keep_layer: bool = False) -> None:
        """Kill every process in the sandbox; idempotent. `home` stays for the caller, and with
        keep_layer its writable layer stays mounted for a start over it again."""
        holder, self._holder = self._holder, None
        if holder is None:
            return
        holder.release()
        self._guard.close(keep_layer=keep_layer)

    @property
    def alive(self) -> bool:
        """Whether the sandbox's keeper and pid 1 still run (False after stop)."""
        return self._holder is not None and self._holder.alive and _running(self.pid1)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def _request(self, message: dict, what: str) -> dict:
        """One request to the keeper that answers at once; SandboxError saying `what` failed."""
        try:
            reply = self._require_alive().request(message, timeout_s=120)
        except holders.HolderFailed as error:
            raise SandboxError(f"{what} failed: {error}") from None
        if "error" in reply:
            raise SandboxError(f"{what} failed: {reply['error']}")
        return reply

    def _require_alive(self) -> holders.Holder:
        if not self.alive or self._holder is None:
            raise SandboxError(f"sandbox {self.home} is not running")
        return self._holder


def release_layer(home: Path) -> None:
    """Unmount a writable layer kept with stop(keep_layer=True)."""
    confine.release_layer(Home(Path(os.path.abspath(home))))


def _scratch(home: Path) -> IO[bytes]:
    return tempfile.TemporaryFile(dir=home)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False
