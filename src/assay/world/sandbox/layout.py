"""The directories of a sandbox home and the bubblewrap arguments that mount them as the sandbox's tree."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from shlex import quote

from assay.world.sandbox.host import compat_dir, interpreter_dirs

COMPAT_MOUNT = "/opt/assay/bin"
LOG_DIRS = ("agent", "verifier", "artifacts")
# Paths the sandbox gets its own copy of; a mask under one of them would only be hidden again.
VERIFIER_LOGS = "/logs/verifier"
OWN_MOUNTS = ("/proc", "/dev", "/run", "/tmp", "/logs")
# Host top-level entries the read-only root does not show: each gets a mount of its own, or none.
NOT_SHARED = ("proc", "dev", "sys", "run", "tmp", "root", "logs", "tests", "solution")
# Writable in the read-only fallback besides workdir, /tmp and /logs: /root, and where task runs
# put the tests and the solution.
FALLBACK_WRITABLE = ("/root", "/tests", "/solution")


@dataclass(frozen=True)
class Home:
    """The host side of one sandbox: every path below `root`."""

    root: Path

    @property
    def upper(self) -> Path:
        return self.root / "upper"

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def merged(self) -> Path:
        return self.root / "merged"

    @property
    def skeleton(self) -> Path:
        return self.root / "skeleton"

    @property
    def base(self) -> Path:
        return self.root / "base"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def workdir(self) -> Path:
        return self.root / "workdir"

    def writable(self, inside: str) -> Path:
        """The host dir bound at `inside` (one of FALLBACK_WRITABLE) in the read-only fallback."""
        return self.root / "writable" / inside.strip("/")

    @property
    def info(self) -> Path:
        return self.root / "info.json"

    @property
    def log(self) -> Path:
        return self.root / "sandbox.log"


def prepare(home: Home, workdir: str, *, overlay: bool) -> None:
    """Make the host dirs of a sandbox in `home.root` (which must be missing or empty)."""
    home.root.mkdir(parents=True, exist_ok=True)
    home.tmp.mkdir(mode=0o1777)
    home.tmp.chmod(0o1777)
    for name in LOG_DIRS:
        (home.logs / name).mkdir(parents=True)
        (home.logs / name).chmod(0o777)
    if overlay:
        for path in (home.upper, home.work, home.merged, home.skeleton, home.base):
            path.mkdir()
    else:
        home.workdir.mkdir()
        for inside in FALLBACK_WRITABLE:
            home.writable(inside).mkdir(mode=0o700 if inside == "/root" else 0o755, parents=True)


def overlay_setup(home: Home, workdir: str, layers: Sequence[Path]) -> str:
    """The shell commands that mount a sandbox's root at `home.merged` in the holder's namespace.

    The kernel refuses lower dirs that overlap, and every layer lies inside the host root; so with
    layers the host root is first made an overlay of its own (with the mountpoints bwrap needs, kept
    on a tmpfs so that making them writes nothing to upper), and the layers are stacked on that.
    """
    mountpoints = [str(home.skeleton / inside.lstrip("/")) for inside in _mountpoints(workdir)]
    base = f"{home.skeleton}:/"
    steps = [
        "umask 022",
        f"mount -t tmpfs -o mode=0755 assay-skeleton {quote(str(home.skeleton))}",
        f"mkdir -p {' '.join(quote(path) for path in mountpoints)}",
    ]
    if layers:
        steps.append(
            f"mount -t overlay overlay -o {quote('lowerdir=' + base)} {quote(str(home.base))}"
        )
        base = ":".join([*(str(layer) for layer in reversed(layers)), str(home.base)])
    options = f"lowerdir={base},upperdir={home.upper},workdir={home.work}"
    odd = [path for path in [*layers, home.root] if any(char in str(path) for char in ",:\\")]
    if odd:
        raise ValueError(f"overlay paths may not contain ',', ':' or '\\': {odd[0]}")
    steps.append(f"mount -t overlay overlay -o {quote(options)} {quote(str(home.merged))}")
    return " && ".join(steps)


def _mountpoints(workdir: str) -> list[str]:
    return ["/logs", "/tmp", COMPAT_MOUNT, workdir]


def bwrap_args(home: Home, *, workdir: str, masks: Sequence[Path], overlay: bool) -> list[str]:
    """The bwrap command line of a persistent sandbox whose pid 1 says `ready` on fd 4, then sleeps."""
    needed = [COMPAT_MOUNT, workdir, *(str(path) for path in interpreter_dirs())]
    tree = ["--bind", str(home.merged), "/"] if overlay else readonly_root(needed)
    tree += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/run"]
    tree += mask_args(masks, overlay=overlay)
    tree += ["--bind", str(home.tmp), "/tmp", "--bind", str(home.logs), "/logs"]
    # only the verifier's own exec remounts it writable, so nothing the agent left can write a reward
    tree += ["--ro-bind", str(home.logs / "verifier"), VERIFIER_LOGS]
    if not overlay:
        for inside in FALLBACK_WRITABLE:
            tree += ["--bind", str(home.writable(inside)), inside]
        if workdir != "/":
            tree += ["--bind", str(home.workdir), workdir]
    for path in interpreter_dirs():
        tree += ["--ro-bind", str(path), str(path)]
    tree += ["--ro-bind", str(compat_dir()), COMPAT_MOUNT]
    if not overlay:
        tree += ["--remount-ro", "/"]
    return [
        "bwrap",
        "--die-with-parent",
        *tree,
        *("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net"),
        *("--hostname", "sandbox", "--chdir", workdir, "--info-fd", "3"),
        "--",
        *("/bin/sh", "-c", "echo ready >&4; exec sleep infinity 4>&-"),
    ]


def mask_args(masks: Sequence[Path], *, overlay: bool) -> list[str]:
    """Hide each existing mask: an empty tmpfs over a directory, /dev/null over anything else."""
    args: list[str] = []
    root_device = os.stat("/").st_dev
    for mask in dict.fromkeys(Path(os.path.realpath(path)) for path in masks):
        if not mask.exists() or _under_own_mount(mask):
            continue
        if overlay and mask.stat().st_dev != root_device:
            continue  # on another filesystem: the overlay of the root filesystem does not show it
        args += ["--tmpfs", str(mask)] if mask.is_dir() else ["--ro-bind", "/dev/null", str(mask)]
    return args


def _under_own_mount(path: Path) -> bool:
    return any(path.is_relative_to(mount) for mount in OWN_MOUNTS)


def readonly_root(needed: Sequence[str]) -> list[str]:
    """A tmpfs root showing the host's tree read-only, split open where a mountpoint must be made.

    `needed`: paths inside that must exist as mountpoints; where the host lacks one, its nearest
    existing ancestor is rebuilt in the tmpfs (children bound one by one) so the mountpoint can be made.
    """
    return _share_children(PurePosixPath("/"), [PurePosixPath(path) for path in needed])


def _share_children(directory: PurePosixPath, needed: list[PurePosixPath]) -> list[str]:
    args: list[str] = []
    for name in sorted(os.listdir(directory)):
        if directory == PurePosixPath("/") and name in NOT_SHARED:
            continue
        path = directory / name
        below = [want for want in needed if want != path and want.is_relative_to(path)]
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), str(path)]
        elif os.path.isdir(path) and any(not os.path.lexists(want) for want in below):
            args += ["--dir", str(path), *_share_children(path, below)]
        else:
            args += ["--ro-bind", str(path), str(path)]
    return args
