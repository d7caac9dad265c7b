"""What uv's installer leaves in a home, put in a sandbox's skeleton (stdlib only; see keeper.py):
`~/.local/bin/env` (and `env.fish`), which puts `~/.local/bin` first on the PATH, and `uv` and
`uvx` there, links to the tool layer's. For root and for each user of the root's /etc/passwd with a
home of its own; the layers above the skeleton (a build's, the task run's) win over it."""

from __future__ import annotations

import os
import stat

ENV_SH = """\
#!/bin/sh
# add binaries to PATH if they aren't added yet
# affix colons on either side of $PATH to simplify matching
case ":${PATH}:" in
    *:"$HOME/.local/bin":*)
        ;;
    *)
        # Prepending path in case a system-installed binary needs to be overridden
        export PATH="$HOME/.local/bin:$PATH"
        ;;
esac
"""
ENV_FISH = """\
if not contains "$HOME/.local/bin" $PATH
    # Prepending path in case a system-installed binary needs to be overridden
    set -x PATH "$HOME/.local/bin" $PATH
end
"""
FIRST_USER, NOBODY = 1000, 65534
MAX_PASSWD = 4 * 1024 * 1024


def write(skeleton: str, lowers: list[str], tools: str) -> None:
    """Write the installer's files for every home in `skeleton`; `lowers` are the root's layers
    top first, `tools` the tool layer's directory inside the sandbox."""
    for uid, gid, home in homes(lowers):
        bin_dir = os.path.join(home, ".local", "bin")
        _directories(skeleton, bin_dir, lowers, (uid, gid))
        where = os.path.join(skeleton, bin_dir.lstrip("/"))
        for name, text in (("env", ENV_SH), ("env.fish", ENV_FISH)):
            path = os.path.join(where, name)
            with open(path, "w") as file:
                file.write(text)
            os.chown(path, uid, gid)
        for name in ("uv", "uvx"):
            path = os.path.join(where, name)
            os.symlink(os.path.join(tools, name), path)
            os.chown(path, uid, gid, follow_symlinks=False)


def homes(lowers: list[str]) -> list[tuple[int, int, str]]:
    """Root's home, and the home of each user from uid 1000 (not nobody) that a layer holds as a
    directory: (uid, gid, home)."""
    found = [(0, 0, "/root")]
    for entry in _passwd(lowers):
        uid, gid, home = int(entry[2]), int(entry[3]), entry[5]
        if not FIRST_USER <= uid < NOBODY or not home.startswith("/") or home.rstrip("/") == "":
            continue
        info = _lstat(lowers, home.lstrip("/"))
        if info is not None and stat.S_ISDIR(info.st_mode) and home not in (h for *_, h in found):
            found.append((uid, gid, os.path.normpath(home)))
    return found


def _passwd(lowers: list[str]) -> list[list[str]]:
    """The entries of the topmost layer's /etc/passwd; none when it is a link (it would resolve
    against the host's root here)."""
    for lower in lowers:
        path = os.path.join(lower, "etc", "passwd")
        if os.path.islink(path) or os.path.islink(os.path.dirname(path)):
            return []
        try:
            with open(path, "rb") as file:
                text = file.read(MAX_PASSWD).decode(errors="replace")
        except FileNotFoundError:
            continue
        except OSError:
            return []
        rows = [line.split(":") for line in text.splitlines() if line and line[0] != "#"]
        return [row for row in rows if len(row) >= 7 and row[2].isdigit() and row[3].isdigit()]
    return []


def _directories(skeleton: str, inside: str, lowers: list[str], owner: tuple[int, int]) -> None:
    """Each directory on the way to `inside`, with the owner and mode a layer gives it, or else
    owned by `owner` (the home's user) and 0755, as the installer would make it."""
    parts = [part for part in inside.split("/") if part]
    for depth in range(1, len(parts) + 1):
        relative = "/".join(parts[:depth])
        target = os.path.join(skeleton, relative)
        if os.path.isdir(target):
            continue
        found = _lstat(lowers, relative)  # before the skeleton, one of the layers, has it
        os.mkdir(target)
        if found is not None and stat.S_ISDIR(found.st_mode):
            os.chown(target, found.st_uid, found.st_gid)
            os.chmod(target, stat.S_IMODE(found.st_mode))
        else:
            os.chown(target, *owner)
            os.chmod(target, 0o755)


def _lstat(lowers: list[str], relative: str) -> os.stat_result | None:
    """The entry at `relative` in the topmost layer that has it; none through a link on the way
    (it would resolve against the host's root here)."""
    parts = [part for part in relative.split("/") if part]
    for lower in lowers:
        path, info = lower, None
        for depth, part in enumerate(parts, 1):
            path = os.path.join(path, part)
            try:
                info = os.lstat(path)
            except OSError:
                info = None
                break
            if stat.S_ISLNK(info.st_mode) and depth < len(parts):
                return None
        if info is not None:
            return info
    return None
