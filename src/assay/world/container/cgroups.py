"""One cgroup per sandbox, on cgroup v1 or v2, that holds its processes to memory, process and
CPU limits and lets them all be killed at once (cgroup_placement.py says where it is made)."""

from __future__ import annotations

import contextlib
import os
import resource
import secrets
import signal
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from assay.world.container.cgroup_placement import MIB, exists, place_v1, place_v2, read

ROOT = Path("/sys/fs/cgroup")
# Tasks (threads count, as in pids.max) per sandbox: room for a parallel build, a browser or a
# JVM (each a few hundred threads at most), while a fork bomb stops long before the host's
# pid_max (32768 by default) or threads-max, even with a dozen sandboxes running at once.
DEFAULT_PIDS = 1024
# How long kill_all waits for the group to empty, and freezing for the group to freeze.
KILL_WAIT_S = 10.0
FREEZE_WAIT_S = 2.0

# limit name → controller (the same name on v1 and v2)
CONTROLLERS = {"memory_mb": "memory", "pids": "pids", "cpus": "cpu"}


@dataclass(frozen=True)
class Limits:
    """What one sandbox may use; None leaves that resource unlimited."""

    memory_mb: int | None = None
    pids: int | None = None
    cpus: float | None = None

    def __post_init__(self) -> None:
        for field in ("memory_mb", "pids", "cpus"):
            value = getattr(self, field)
            if value is not None and not value > 0:
                raise ValueError(f"{field} must be positive, not {value!r}")

    def wanted(self) -> dict[str, str]:
        """limit name → controller, for the limits that are set."""
        return {limit: c for limit, c in CONTROLLERS.items() if getattr(self, limit) is not None}


def own_cgroups(text: str | None = None) -> dict[str, str]:
    """This process's cgroup per v1 controller, and under "" its v2 cgroup (/proc/self/cgroup)."""
    if text is None:
        try:
            text = Path("/proc/self/cgroup").read_text()
        except OSError:
            return {}
    paths: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


class Cgroup:
    """The group of one sandbox: a directory per v1 controller, or one v2 directory."""

    def __init__(self, version: int | None, dirs: dict[str, Path], unenforced: dict[str, str]):
        self.version = version  # 1, 2, or None where no group could be made
        self.dirs = dirs  # v1: controller → directory ("freezer" too); v2: {"": directory}
        self.unenforced = unenforced  # limit name → why it does not hold here
        self.unremoved: list[str] = []  # what remove() could not remove, and why

    @classmethod
    def create(cls, name: str, limits: Limits, *, root: Path = ROOT) -> Cgroup:
        """Make the group for sandbox `name` (a random suffix keeps it unique) and set `limits`.

        Never raises for what the machine cannot do: each limit that will not hold is in
        .unenforced with the reason.
        """
        if not name or "/" in name or name.startswith("."):
            raise ValueError(f"not a cgroup name: {name!r}")
        unique = f"{name}-{secrets.token_hex(4)}"
        own = own_cgroups()
        if exists(root / "cgroup.controllers"):
            return cls(*place_v2(unique, limits, root, own.get("", "/")))
        return cls(*place_v1(unique, limits, root, own))

    @property
    def procs_files(self) -> tuple[Path, ...]:
        """The cgroup.procs files a process writes "0" to, to move itself in before it forks."""
        return tuple(d / "cgroup.procs" for d in self.dirs.values())

    def attach(self, pid: int) -> None:
        """Move process `pid` (all its threads, and so its future children) into the group."""
        for procs in self.procs_files:
            procs.write_text(str(pid))

    def kill_all(self) -> None:
        """SIGKILL every process in the group, frozen first so none can fork away; wait for it
        to empty (bounded by KILL_WAIT_S)."""
        if not self.dirs:
            return
        deadline = time.monotonic() + KILL_WAIT_S
        kill = self.dirs.get("", Path()) / "cgroup.kill"  # v2, Linux 5.14 and later
        if self.version == 2 and exists(kill) and _write_ok(kill, "1"):
            while self._pids() and time.monotonic() < deadline:
                time.sleep(0.01)
            return
        with self._frozen():
            _signal_all(self._pids())
        # Without a freezer a child forked after the listing escapes one round, not the loop.
        while self._pids() and time.monotonic() < deadline:
            _signal_all(self._pids())
            time.sleep(0.01)

    def remove(self) -> None:
        """kill_all, then remove the group's directories (and our parent "assay" ones once
        empty); what cannot be removed is listed in .unremoved. Calling it again is harmless."""
        self.kill_all()
        self.unremoved = []
        for directory in self.dirs.values():
            gone = _rmdir_tree(directory, time.monotonic() + KILL_WAIT_S)
            if gone is not None:
                self.unremoved.append(f"{directory}: {gone}")
                continue
            with contextlib.suppress(OSError):  # another sandbox's group still in it
                directory.parent.rmdir()

    def peak_memory_mb(self) -> float | None:
        """The most memory the group used, where the kernel records it."""
        if self.version == 2:
            peak = read(self.dirs[""] / "memory.peak")
        elif "memory" in self.dirs:
            peak = read(self.dirs["memory"] / "memory.max_usage_in_bytes")
        else:
            peak = None
        return int(peak) / MIB if peak and peak.strip().isdigit() else None

    def _pids(self) -> list[int]:
        """Every process in the group, its child groups included, except this one."""
        if self.version == 1:
            dirs = [self.dirs["freezer"]] if "freezer" in self.dirs else list(self.dirs.values())
        else:
            dirs = list(self.dirs.values())
        found: set[int] = set()
        for directory in dirs:
            for procs in _all_procs_files(directory):
                found.update(int(p) for p in (read(procs) or "").split())
        found.discard(os.getpid())
        return sorted(found)

    @contextlib.contextmanager
    def _frozen(self) -> Iterator[None]:
        if self.version == 2:
            state, frozen, thawed, done = "cgroup.freeze", "1", "0", "frozen 1"
            directory = self.dirs[""]
        elif "freezer" in self.dirs:
            state, frozen, thawed, done = "freezer.state", "FROZEN", "THAWED", "FROZEN"
            directory = self.dirs["freezer"]
        else:
            yield
            return
        check = directory / ("cgroup.events" if self.version == 2 else state)
        froze = _write_ok(directory / state, frozen)
        deadline = time.monotonic() + FREEZE_WAIT_S
        while froze and done not in (read(check) or "") and time.monotonic() < deadline:
            time.sleep(0.005)
        try:
            yield
        finally:
            # SIGKILL sent to a frozen task takes effect when it thaws.
            _write_ok(directory / state, thawed)


def rlimits_for(
    limits: Limits, unenforced: Mapping[str, str]
) -> tuple[dict[int, tuple[int, int]], list[str]]:
    """For each limit the cgroup could not enforce, the closest setrlimit and a note saying so.

    RLIMIT_AS caps address space, not memory in use (a JVM or Go runtime reserves more than it
    touches); RLIMIT_NPROC counts every process of the same uid, not only this sandbox's; no
    rlimit caps a CPU rate, so cpus only gets a note.
    """
    rlimits: dict[int, tuple[int, int]] = {}
    notes: list[str] = []
    if limits.memory_mb is not None and "memory_mb" in unenforced:
        size = int(limits.memory_mb) * MIB
        rlimits[resource.RLIMIT_AS] = (size, size)
        notes.append(f"memory_mb_as_address_space: {unenforced['memory_mb']}")
    if limits.pids is not None and "pids" in unenforced:
        rlimits[resource.RLIMIT_NPROC] = (limits.pids, limits.pids)
        notes.append(f"pids_as_nproc: {unenforced['pids']}")
    if limits.cpus is not None and "cpus" in unenforced:
        notes.append(f"cpus_not_enforced: {unenforced['cpus']}")
    return rlimits, notes


def _write_ok(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
    except OSError:
        return False
    return True


def _all_procs_files(directory: Path) -> list[Path]:
    """directory's cgroup.procs and those of the groups below it."""
    found = []
    for parent, _, files in os.walk(directory):
        if "cgroup.procs" in files:
            found.append(Path(parent) / "cgroup.procs")
    return found


def _signal_all(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _rmdir_tree(directory: Path, deadline: float) -> str | None:
    """Remove a group and the groups below it, retrying while dying tasks keep it busy."""
    while True:
        try:
            for parent, children, _ in os.walk(directory, topdown=False):
                for child in children:
                    with contextlib.suppress(FileNotFoundError):
                        (Path(parent) / child).rmdir()
            directory.rmdir()
            return None
        except FileNotFoundError:
            return None
        except OSError as error:
            if time.monotonic() >= deadline:
                return error.strerror
            time.sleep(0.01)
