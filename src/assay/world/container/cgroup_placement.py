"""Where a sandbox's cgroup is made on a v1 or a v2 hierarchy, and the limits written into it:
under our own group where the rules allow, else beside it, else under the root."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.world.container.cgroups import Limits

# A sandbox's group: the cgroup version (None where none could be made), its directories (v1:
# controller → directory; v2: {"": directory}), and each limit that does not hold, with why.
Placement = tuple[int | None, dict[str, Path], dict[str, str]]
CPU_PERIOD_US = 100_000
MIB = 1 << 20
# A group younger than this, empty, may be one being set up: a sweep leaves it alone.
STALE_S = 60.0


def place_v1(name: str, limits: Limits, root: Path, own: Mapping[str, str]) -> Placement:
    """A directory per controller, under our own group where we may, else under the root."""
    dirs: dict[str, Path] = {}
    unenforced: dict[str, str] = {}
    # freezer for kill_all; memory only with a limit (a memory group costs a few ms to make,
    # join and remove, on each of a task run's two sandboxes).
    controllers = {"freezer", *limits.wanted().values()}
    for controller in sorted(controllers):
        made = _make_v1(root / controller, own.get(controller, "/"), name)
        if isinstance(made, Path):
            dirs[controller] = made
            continue
        for limit, needed in limits.wanted().items():
            if needed == controller:
                unenforced[limit] = made
    for limit, controller in limits.wanted().items():
        if controller in dirs and (failed := _write_limit(1, dirs[controller], limit, limits)):
            unenforced[limit] = failed
    return (1 if dirs else None, dirs, unenforced)


def _make_v1(hierarchy: Path, own: str, name: str) -> Path | str:
    """The new group under our own group, else under the hierarchy's root; else why not."""
    if not exists(hierarchy / "cgroup.procs"):
        return f"no {hierarchy.name} cgroup hierarchy at {hierarchy}"
    tried = []
    for parent in dict.fromkeys([hierarchy / own.lstrip("/") / "assay", hierarchy / "assay"]):
        made = _mkdir_group(parent, name)
        if isinstance(made, Path):
            return made
        tried.append(made)
    return f"no writable {hierarchy.name} cgroup: {'; '.join(tried)}"


def place_v2(name: str, limits: Limits, root: Path, own: str) -> Placement:
    """One directory with as many of the wanted controllers as a parent we may use offers."""
    wanted = set(limits.wanted().values())
    here = root / own.lstrip("/")
    # Our own group holds processes, and v2 lets only an empty group (or the root) enable
    # controllers for children; so a sibling group under our parent, else under the root.
    parents = [p for p in dict.fromkeys([here, here.parent, root]) if p.is_relative_to(root)]
    best: tuple[Path, set[str]] | None = None
    tried: list[str] = []
    for parent in parents:
        made = _make_v2(root, parent, name, wanted, tried)
        if made is None:
            continue
        if best is None or len(made[1]) > len(best[1]):
            if best is not None:
                _rmdir_quietly(best[0])
            best = made
        else:
            _rmdir_quietly(made[0])
        if best[1] == wanted:
            break
    if best is None:
        reason = f"no writable cgroup v2 group: {'; '.join(tried)}"
        return (None, {}, dict.fromkeys(limits.wanted(), reason))
    group, present = best
    unenforced = {}
    for limit, controller in limits.wanted().items():
        if controller not in present:
            why = "; ".join(tried) or "not delegated"
            unenforced[limit] = f"no cgroup v2 {controller} controller under {group.parent}: {why}"
        elif failed := _write_limit(2, group, limit, limits):
            unenforced[limit] = failed
    return (2, {"": group}, unenforced)


def _make_v2(
    root: Path, parent: Path, name: str, wanted: set[str], tried: list[str]
) -> tuple[Path, set[str]] | None:
    """parent/assay/name, and the wanted controllers it has; what went wrong goes to `tried`."""
    if not exists(parent / "cgroup.controllers"):
        tried.append(f"{parent}: not a cgroup")
        return None
    # A group offers its children only what its own parent enabled: enable from the root down.
    for ancestor in [*reversed(parent.relative_to(root).parents), parent.relative_to(root)]:
        tried += enable(root / ancestor, wanted)
    made = _mkdir_group(parent / "assay", name)
    if isinstance(made, str):
        tried.append(made)
        return None
    tried += enable(parent / "assay", wanted)
    present = wanted & set((read(made / "cgroup.controllers") or "").split())
    offered = set((read(parent / "cgroup.controllers") or "").split())
    if wanted - offered:
        absent = ", ".join(sorted(wanted - offered))
        tried.append(f"{parent} has no {absent} controller (not delegated, or bound to cgroup v1)")
    return made, present


def enable(group: Path, wanted: set[str]) -> list[str]:
    """Enable the wanted controllers that `group` has for its children; the failures."""
    available = set((read(group / "cgroup.controllers") or "").split())
    enabled = set((read(group / "cgroup.subtree_control") or "").split())
    failures = []
    for controller in sorted((wanted & available) - enabled):
        try:
            (group / "cgroup.subtree_control").write_text(f"+{controller}")
        except OSError as error:  # EBUSY: the group holds processes
            failures.append(f"{group}: +{controller}: {error.strerror}")
    return failures


def _write_limit(version: int, group: Path, limit: str, limits: Limits) -> str | None:
    """Write one limit into a group; the reason on failure."""
    quota = max(1000, round((limits.cpus or 0) * CPU_PERIOD_US))  # the kernel's least: 1 ms
    size = str(int(limits.memory_mb or 0) * MIB)
    if limit == "pids":
        writes = [("pids.max", str(limits.pids))]
    elif limit == "cpus" and version == 2:
        writes = [("cpu.max", f"{quota} {CPU_PERIOD_US}")]
    elif limit == "cpus":
        writes = [("cpu.cfs_period_us", str(CPU_PERIOD_US)), ("cpu.cfs_quota_us", str(quota))]
    elif version == 2:  # memory, and no swap, so that swapping cannot dodge the limit
        writes = [("memory.max", size)]
        if exists(group / "memory.swap.max"):
            writes.append(("memory.swap.max", "0"))
    else:
        writes = [("memory.limit_in_bytes", size)]
        if exists(group / "memory.memsw.limit_in_bytes"):  # memory and swap together
            writes.append(("memory.memsw.limit_in_bytes", size))
        else:  # no swap accounting (swapaccount=0): keep the group from swapping at all
            writes.append(("memory.swappiness", "0"))
    return _write_all(group, writes)


def _mkdir_group(parent: Path, name: str) -> Path | str:
    """parent/name as a new cgroup (parent made as needed, not its own parent); else why not."""
    for _ in range(3):
        try:
            parent.mkdir(exist_ok=True)
        except OSError as error:
            return f"{parent}: {error.strerror}"
        _sweep(parent)
        try:
            (parent / name).mkdir()
            return parent / name
        except FileNotFoundError:  # a concurrent remove() took the empty parent away: again
            continue
        except OSError as error:
            return f"{parent / name}: {error.strerror}"
    return f"{parent}: removed while making {name}"


def _sweep(parent: Path) -> None:
    """Remove the empty groups an assay process that was killed left behind (it never removed
    them); a group younger than STALE_S may be one being set up, and is left alone."""
    now = time.time()
    try:
        children = [child for child in parent.iterdir() if child.is_dir()]
    except OSError:
        return
    for child in children:
        try:
            if now - child.stat().st_mtime > STALE_S and not (child / "cgroup.procs").read_text():
                child.rmdir()
        except OSError:
            continue


def exists(path: Path) -> bool:
    """Path.exists, False where the path cannot even be looked at (Python 3.11 raises)."""
    try:
        return path.exists()
    except OSError:
        return False


def read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _write_all(group: Path, writes: list[tuple[str, str]]) -> str | None:
    for file, value in writes:
        try:
            (group / file).write_text(value)
        except OSError as error:
            return f"writing {value} to {group / file}: {error.strerror}"
    return None


def _rmdir_quietly(group: Path) -> None:
    with contextlib.suppress(OSError):
        group.rmdir()
    with contextlib.suppress(OSError):
        group.parent.rmdir()
