"""Who a command runs as inside a sandbox: a user or `user:group` resolved in the sandbox's own files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

MAX_ACCOUNT_FILE = 4 * 1024 * 1024


class UnknownUser(Exception):
    """The sandbox has no such user or group; str() says which."""


@dataclass(frozen=True)
class Identity:
    uid: int
    gid: int
    home: str
    known: bool  # has a passwd entry, so its supplementary groups can be looked up


ROOT = Identity(uid=0, gid=0, home="/root", known=True)


def resolve(root: Path | str, spec: str | int | None) -> Identity:
    """The identity `spec` names (user, uid, `user:group`) in the sandbox whose root is `root`.

    Like Docker, a uid without a passwd entry runs with gid 0 and HOME=/.
    """
    if spec is None:
        return ROOT
    root = Path(root)
    user, _, group = str(spec).partition(":")
    entry = _find(_entries(root / "etc/passwd"), user)
    if entry is not None and len(entry) >= 7 and entry[3].isdigit():
        identity = Identity(int(entry[2]), int(entry[3]), entry[5] or "/", known=True)
    elif user.isdigit():
        identity = Identity(int(user), 0, "/", known=False)
    else:
        raise UnknownUser(f"unable to find user {user}: no matching entries in passwd file")
    if not group:
        return identity
    return Identity(identity.uid, _group_id(root, group), identity.home, identity.known)


def groups(root: Path | str, who: Identity) -> list[int]:
    """The user's groups as `initgroups` gives them: its primary group and every group that lists
    it as a member in the sandbox's /etc/group."""
    passwd = [entry for entry in _entries(Path(root) / "etc/passwd") if entry[2] == str(who.uid)]
    names = {entry[0] for entry in passwd}
    found = [who.gid]
    for entry in _entries(Path(root) / "etc/group"):
        members = set(entry[3].split(",")) if len(entry) > 3 else set()
        if members & names and int(entry[2]) not in found:
            found.append(int(entry[2]))
    return found


def _group_id(root: Path, group: str) -> int:
    entry = _find(_entries(root / "etc/group"), group)
    if entry is not None:
        return int(entry[2])
    if group.isdigit():
        return int(group)
    raise UnknownUser(f"unable to find group {group}: no matching entries in group file")


def _find(entries: list[list[str]], name: str) -> list[str] | None:
    by_name = next((entry for entry in entries if entry[0] == name), None)
    if by_name is not None or not name.isdigit():
        return by_name
    return next((entry for entry in entries if entry[2] == name), None)


def _entries(path: Path) -> list[list[str]]:
    # Read through /proc/<pid>/root: a symlink there would resolve against the host's root, so an
    # account file reached through one is not read at all.
    if path.parent.is_symlink() or path.is_symlink():
        return []
    try:
        with path.open("rb") as file:
            text = file.read(MAX_ACCOUNT_FILE).decode(errors="replace")
    except OSError:
        return []
    rows = [line.split(":") for line in text.splitlines() if line and not line.startswith("#")]
    return [row for row in rows if len(row) >= 3 and row[2].isdigit()]
