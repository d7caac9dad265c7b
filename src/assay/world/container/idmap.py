"""The user namespace every sandbox runs in: its uids 0…65535 are host uids from BASE on, so root
inside a sandbox is an unprivileged host uid, never the host's root."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

COUNT = 65536
# Used when /etc/subuid names no range for the user assay runs as (Docker's userns-remap default).
DEFAULT_BASE = 100000


@dataclass(frozen=True)
class IdMap:
    """Inside ids 0…count-1 are host ids uid_base… and gid_base…."""

    uid_base: int
    gid_base: int
    count: int = COUNT

    def host_uid(self, inside: int) -> int:
        return self.uid_base + inside

    def host_gid(self, inside: int) -> int:
        return self.gid_base + inside

    @property
    def uid_map(self) -> str:
        """The text written to a process's /proc/PID/uid_map."""
        return f"0 {self.uid_base} {self.count}\n"

    @property
    def gid_map(self) -> str:
        return f"0 {self.gid_base} {self.count}\n"


def sandbox_ids() -> IdMap:
    """The range of /etc/subuid and /etc/subgid for the user assay runs as, else DEFAULT_BASE."""
    return IdMap(
        _subordinate(Path("/etc/subuid")) or DEFAULT_BASE,
        _subordinate(Path("/etc/subgid")) or DEFAULT_BASE,
    )


def _subordinate(path: Path) -> int | None:
    names = {str(os.geteuid())}
    try:
        import pwd

        names.add(pwd.getpwuid(os.geteuid()).pw_name)
    except KeyError:
        pass
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.strip().split(":")
        numeric = len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit()
        if numeric and parts[0] in names and int(parts[2]) >= COUNT:
            return int(parts[1])
    return None
