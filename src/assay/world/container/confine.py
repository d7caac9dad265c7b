"""What holds one sandbox in from the host side: its cgroup (processes, memory, CPU), the size of
its writable layer, its network, and the seccomp filter of its commands; each limit the machine
cannot enforce is said in a note, never dropped in silence."""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from assay.world.container import cgroups, network, seccomp
from assay.world.container.cgroups import Limits
from assay.world.container.idmap import IdMap
from assay.world.container.layout import Home

if TYPE_CHECKING:
    from assay.world.container.box import Options

__all__ = ["Confinement", "ConfinementFailed", "Limits", "default_base", "release_layer"]

# Every command: no core files (a crash must not write where the host reads), a file table like
# a container's.
ALWAYS = [(resource.RLIMIT_CORE, 0, 0), (resource.RLIMIT_NOFILE, 4096, 4096)]
MNT_DETACH = 2
UNSTABLE_NOTES = ("public through pasta", "allowlist through the proxy at")


class ConfinementFailed(Exception):
    """A limit or the network could not be set up; str() says why."""


class Confinement:
    """The host-side parts of one start of a sandbox; close() undoes them."""

    def __init__(self, home: Path, options: Options) -> None:
        self.home = Home(home)
        self.limits = options.limits
        self.storage_mb = options.storage_mb
        self.mode = options.network
        self.allowed_hosts = tuple(options.allowed_hosts)
        self.notes: list[str] = []
        self.env: dict[str, str] = {}
        self.rlimits: list[tuple[int, int, int]] = list(ALWAYS)
        self.cpu_list: list[int] | None = None
        self.network: network.Network | None = None
        self.group: cgroups.Cgroup | None = None

    def seccomp(self) -> bytes:
        """The filter every command runs under (empty where the architecture has none: noted)."""
        if not seccomp.SUPPORTED:
            self.notes.append(f"seccomp_not_enforced: no filter for {os.uname().machine}")
            return b""
        return seccomp.program()

    def prepare_layer(self, ids: IdMap, *, fresh: bool) -> None:
        """With storage_mb, the writable layer lives on a tmpfs of that size (the whole layer, not
        one file, is capped); a layer kept from an earlier start is used as it is."""
        layer = self.home.layer
        size = self.storage_mb
        if not fresh or size is None:
            return
        layer.mkdir(parents=True, exist_ok=True)
        options = f"size={size}m,mode=0755,uid={ids.host_uid(0)},gid={ids.host_gid(0)}"
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", options, "assay-layer", str(layer)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            self.notes.append(f"storage_mb_not_enforced: {done.stderr.strip() or 'mount refused'}")

    def join(self, pid: int) -> None:
        """Put the keeper (and so every process it starts) in the sandbox's cgroup."""
        self.group = cgroups.Cgroup.create(f"sandbox-{uuid.uuid4().hex[:12]}", self.limits)
        self.group.attach(pid)
        fallback, notes = cgroups.rlimits_for(self.limits, self.group.unenforced)
        self.rlimits += [(number, soft, hard) for number, (soft, hard) in fallback.items()]
        self.notes += notes
        if "cpus" in self.group.unenforced and self.limits.cpus:
            allowed = sorted(os.sched_getaffinity(0))
            wanted = max(1, int(self.limits.cpus))
            if wanted < len(allowed):
                self.cpu_list = allowed[:wanted]
                self.notes.append("cpus_as_affinity: " + self.group.unenforced["cpus"])

    def connect(self, pid1: int, home: Home) -> None:
        """Give the sandbox's network namespace its network; write the resolver it should use,
        and apt's proxy setting when the package cache is offered."""
        try:
            self.network = network.attach(pid1, self.mode, self.allowed_hosts)
        except network.NetworkFailed as error:
            raise ConfinementFailed(f"network {self.mode}: {error}") from None
        self.env = dict(self.network.env)
        # A pid or a port would make two task runs' records differ where nothing else does.
        stable = [note for note in self.network.notes if not note.startswith(UNSTABLE_NOTES)]
        self.notes += [note for note in stable if note not in self.notes]
        if self.mode != "no-network":
            lines = "".join(f"nameserver {server}\n" for server in self.network.nameservers)
            with open(home.resolv, "w") as file:  # the bound file itself: its inode is mounted
                file.write(lines)
            if self.network.packages is not None:
                with open(home.apt_conf, "w") as file:
                    file.write(self.network.packages.apt_conf)

    def close(self, *, keep_layer: bool = False) -> None:
        """Stop the network, kill what is left in the cgroup and remove it; the layer's tmpfs too
        unless it is kept for another start over it."""
        if self.network is not None:
            self.network.close()
            self.network = None
        if self.group is not None:
            self.group.remove()
            self.group = None
        if not keep_layer:
            release_layer(self.home)


def machine_gaps() -> list[str]:
    """One line for each guarantee this machine cannot give a sandbox, found by trying it."""
    gaps = []
    if not seccomp.SUPPORTED:
        gaps.append(f"no seccomp filter for {os.uname().machine}: system calls are not filtered")
    try:
        if int(Path("/proc/sys/user/max_user_namespaces").read_text()) == 0:
            gaps.append("user namespaces are disabled (user.max_user_namespaces = 0)")
    except (OSError, ValueError):
        pass
    probe = cgroups.Cgroup.create("probe", Limits(memory_mb=64, pids=64, cpus=1.0))
    try:
        gaps += [
            f"{name} is not enforced by a cgroup: {why}" for name, why in probe.unenforced.items()
        ]
    finally:
        probe.remove()
    return gaps


def release_layer(home: Home) -> None:
    """Unmount the layer's tmpfs, if one is mounted there."""
    if os.path.ismount(home.layer):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.umount2(str(home.layer).encode(), MNT_DETACH)


def default_base() -> Path:
    """The base root of a sandbox that names none: Debian's minimal root, built once and cached."""
    from assay.world.container.baseroot import BaseRootFailed, base_root

    try:
        return base_root()
    except BaseRootFailed as error:
        raise ConfinementFailed(f"base root: {error}") from None
