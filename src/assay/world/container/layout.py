"""The directories of a sandbox home and the keeper's plan for them: the overlay root (base root,
build layers, the task run's upper dir), the mounts bubblewrap makes, and nothing of the host's
tree but the read-only tool layer (uv, the commands that run it, busybox)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from assay.world.container.host import busybox_path, bwrap_path, tool_dir, uv_binary
from assay.world.container.idmap import IdMap

TOOL_MOUNT = "/opt/assay/bin"  # uv and uvx, which run the real uv: first on the PATH on purpose
UV_MOUNT = "/opt/assay/uv/uv"  # the real uv binary, run through TOOL_MOUNT's uv
TOOLS_MOUNT = "/opt/assay/tools"  # assay's own static tools, called by absolute path only
BUSYBOX = f"{TOOLS_MOUNT}/busybox"
LOG_DIRS = ("agent", "verifier", "artifacts")
VERIFIER_LOGS = "/logs/verifier"
RESOLV_CONF = "/etc/resolv.conf"
APT_CONF = "/etc/apt/apt.conf.d/99assay-package-cache"  # apt's proxy: the host's package cache
FD = "fd:"  # a source the keeper opens before it leaves the host's privileges, named after this
# What Docker masks in /proc (an empty file or directory over it) and keeps read-only.
PROC_MASKED_FILES = (
    "/proc/kcore",
    "/proc/keys",
    "/proc/timer_list",
    "/proc/sched_debug",
    "/proc/latency_stats",
    "/proc/sysrq-trigger",
)
PROC_MASKED_DIRS = ("/proc/acpi", "/proc/scsi", "/proc/asound")
PROC_READ_ONLY = ("/proc/sys", "/proc/bus", "/proc/fs", "/proc/irq")
# pid 2 of the sandbox: assay's static busybox, so nothing the agent left in the root runs there.
PID2 = ["sh", "-c", f"echo ready; exec {BUSYBOX} sleep 2147483647 >/dev/null"]


@dataclass(frozen=True)
class Home:
    """The host side of one sandbox: every path below `root`."""

    root: Path

    @property
    def layer(self) -> Path:
        """Holds upper and work; a tmpfs of `storage_mb` when the disk is limited."""
        return self.root / "layer"

    @property
    def upper(self) -> Path:
        return self.layer / "upper"

    @property
    def work(self) -> Path:
        return self.layer / "work"

    @property
    def merged(self) -> Path:
        return self.root / "merged"

    @property
    def skeleton(self) -> Path:
        return self.root / "skeleton"

    @property
    def tmp(self) -> Path:
        """In the layer: /tmp counts against storage_mb, as in a container's root."""
        return self.layer / "tmp"

    @property
    def logs(self) -> Path:
        return self.layer / "logs"

    @property
    def verifier_logs(self) -> Path:
        """A fresh directory bound at /logs/verifier for a verifier phase only."""
        return self.root / "verifier"

    @property
    def resolv(self) -> Path:
        return self.root / "resolv.conf"

    @property
    def apt_conf(self) -> Path:
        return self.root / "apt-package-cache.conf"

    @property
    def log(self) -> Path:
        return self.root / "sandbox.log"


@dataclass(frozen=True)
class Plan:
    """What one start of a sandbox asks for."""

    base: Path
    layers: Sequence[Path] = ()
    workdir: str = "/"
    verifier: bool = False  # a verifier phase: /logs/verifier writable, for its processes alone
    nameservers: Sequence[str] | None = None  # None: no network beyond loopback
    package_cache: bool = False  # apt is pointed at the host's package cache (written at connect)
    binds: Sequence[tuple[Path, str]] = field(default_factory=tuple)  # read-only, host → inside


def prepare(home: Home, ids: IdMap, *, fresh_layer: bool, verifier: bool = False) -> None:
    """Make the host dirs of a sandbox, owned by the sandbox's root; keep upper when not fresh,
    and for a verifier phase make its /logs/verifier anew, empty.

    A start over a kept layer finds what the agent left in /logs and /tmp: a link or a file where
    a directory belongs is removed, never followed (no sandbox process runs then to swap it back).
    """
    home.root.mkdir(parents=True, exist_ok=True)
    os.chmod(home.root, 0o711)
    root_ids = (ids.host_uid(0), ids.host_gid(0))
    home.layer.mkdir(exist_ok=True)
    for path, mode in ((home.merged, 0o755), (home.skeleton, 0o755), (home.tmp, 0o1777)):
        _real_dir(path, mode, root_ids)
    _real_dir(home.logs, 0o755, root_ids)
    for name in LOG_DIRS:
        _real_dir(home.logs / name, 0o777, root_ids)
    # bwrap's errors; the resolver and apt's proxy, bound before they are known
    for path in (home.log, home.resolv, home.apt_conf):
        path.touch()
        os.chown(path, *root_ids)
    if verifier:
        if os.path.lexists(home.verifier_logs):
            shutil.rmtree(home.verifier_logs)  # an earlier phase's: only assay writes it here
        _real_dir(home.verifier_logs, 0o777, root_ids)
    if fresh_layer:
        for path in (home.upper, home.work):
            path.mkdir(parents=True)
            os.chown(path, *root_ids)


def _real_dir(path: Path, mode: int, ids: tuple[int, int]) -> None:
    if os.path.islink(path) or (os.path.lexists(path) and not os.path.isdir(path)):
        os.unlink(path)
    path.mkdir(exist_ok=True)
    os.chown(path, *ids, follow_symlinks=False)
    os.chmod(path, mode)


def keeper_config(home: Home, plan: Plan, seccomp: bytes) -> dict:
    """The keeper's plan: the sources it opens, the overlay's layers top first, the mountpoints the
    root needs, the read-only binds, bwrap's argv."""
    if any(char in str(home.root) for char in ",:\\"):
        raise ValueError(f"a sandbox home may not contain ',', ':' or '\\': {home.root}")
    layers = {f"layer{index}": path for index, path in enumerate(plan.layers)}
    read_only = _read_only(plan)
    bound = {name: source for name, (source, _) in read_only.items()}
    sources = {"base": plan.base, **layers, **bound}
    return {
        "sources": {name: str(path) for name, path in sources.items()},
        "skeleton": str(home.skeleton),
        "tools": TOOL_MOUNT,
        # The skeleton (mountpoints only) lies just above the base: a build layer's own
        # directories keep their owners and modes over it.
        "lowers": [*(f"{FD}{name}" for name in reversed(layers)), str(home.skeleton), f"{FD}base"],
        "upper": str(home.upper),
        "work": str(home.work),
        "merged": str(home.merged),
        "mountpoints": _mountpoints(plan),
        "binds": [[name, target] for name, (_, target) in read_only.items()],
        "bwrap": bwrap_args(home, plan),
        "log": str(home.log),
        "seccomp": seccomp.hex(),
    }


def _mountpoints(plan: Plan) -> list[str]:
    inside = ["/logs", "/tmp", "/run", "/proc", "/dev", "/sys", TOOL_MOUNT, f"{BUSYBOX}!file"]
    inside += [plan.workdir, *([f"{UV_MOUNT}!file"] if uv_binary() else [])]
    inside += [target if source.is_dir() else f"{target}!file" for source, target in plan.binds]
    if plan.nameservers is not None:
        inside.append(f"{RESOLV_CONF}!file")
    if plan.package_cache:
        inside.append(f"{APT_CONF}!file")
    return [path for path in inside if path != "/"]


def bwrap_args(home: Home, plan: Plan) -> list[str]:
    """bwrap's command line (the keeper adds --info-fd): the tree, the namespaces, pid 2."""
    tree = ["--bind", str(home.merged), "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/run"]
    tree += _proc_masks()
    tree += ["--bind", str(home.tmp), "/tmp", "--bind", str(home.logs), "/logs"]
    if plan.verifier:
        tree += ["--bind", str(home.verifier_logs), VERIFIER_LOGS]
    else:
        tree += ["--ro-bind", str(home.logs / "verifier"), VERIFIER_LOGS]
    if plan.nameservers is not None:
        tree += ["--ro-bind", str(home.resolv), RESOLV_CONF]
    if plan.package_cache:
        tree += ["--ro-bind", str(home.apt_conf), APT_CONF]
    return [
        str(bwrap_path()),
        "--die-with-parent",
        *tree,
        *("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net"),
        *("--hostname", "sandbox", "--chdir", plan.workdir, "--cap-drop", "ALL"),
        "--",
        BUSYBOX,
        *PID2,
    ]


def _read_only(plan: Plan) -> dict[str, tuple[Path, str]]:
    """The host paths bound read-only, by name: the keeper opens each while it is still the host's
    root, so a path the sandbox's own uid could not walk (a 0700 home) can still be bound."""
    named = {"tools": (tool_dir(), TOOL_MOUNT)}
    uv = uv_binary()
    if uv is not None:
        named["uv"] = (uv, UV_MOUNT)
    named["busybox"] = (busybox_path(), BUSYBOX)
    named.update({f"bind{i}": bind for i, bind in enumerate(plan.binds)})
    return named


def _proc_masks() -> list[str]:
    args: list[str] = []
    for path in PROC_MASKED_FILES:
        if os.path.exists(path):
            args += ["--ro-bind", "/dev/null", path]
    for path in PROC_MASKED_DIRS:
        if os.path.isdir(path):
            args += ["--tmpfs", path, "--remount-ro", path]
    for path in PROC_READ_ONLY:
        if os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args
