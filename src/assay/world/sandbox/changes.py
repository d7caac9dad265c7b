"""The digest of what a sandbox changed: its overlay upper dir (or writable dir) walked in order."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

# An overlay mounted in a user namespace marks opaque directories with user.* xattrs.
OPAQUE = ("trusted.overlay.opaque", "user.overlay.opaque")
CHUNK = 1024 * 1024


def tree_digest(root: Path) -> tuple[str, int]:
    """(sha256 hex, entries) over every entry below `root`: path, type, mode, owner, size, link
    target and content hash, never times, so the same actions give the same digest."""
    digest = hashlib.sha256()
    count = 0
    for path in _walk(root):
        digest.update(describe(root, path).encode("utf-8", "surrogateescape") + b"\n")
        count += 1
    return digest.hexdigest(), count


def describe(root: Path, path: Path) -> str:
    """One entry as a line: an overlay whiteout (char device 0:0) reads as a deletion."""
    info = os.lstat(path)
    name = "/" + path.relative_to(root).as_posix()
    mode = stat.S_IMODE(info.st_mode)
    owner = f"{info.st_uid}:{info.st_gid}"
    if stat.S_ISCHR(info.st_mode) and info.st_rdev == 0:
        return f"deleted\0{name}"
    if stat.S_ISDIR(info.st_mode):
        kind = "dir-opaque" if _is_opaque(path) else "dir"
        return f"{kind}\0{name}\0{mode:o}\0{owner}"
    if stat.S_ISLNK(info.st_mode):
        return f"link\0{name}\0{owner}\0{os.readlink(path)}"
    if stat.S_ISREG(info.st_mode):
        return f"file\0{name}\0{mode:o}\0{owner}\0{info.st_size}\0{_content_hash(path)}"
    return f"special-{stat.S_IFMT(info.st_mode):o}\0{name}\0{mode:o}\0{owner}\0{info.st_rdev}"


def _walk(root: Path):
    for directory, dirnames, filenames in os.walk(root):
        dirnames.sort()
        base = Path(directory)
        for name in sorted([*dirnames, *filenames]):
            yield base / name


def _is_opaque(path: Path) -> bool:
    for name in OPAQUE:
        try:
            if os.getxattr(path, name, follow_symlinks=False) == b"y":
                return True
        except OSError:
            continue
    return False


def _content_hash(path: Path) -> str:
    digest = hashlib.sha256()
    # Never follow a link or wait on a FIFO the sandbox swapped in after the walk saw a file.
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return "unreadable"
    with open(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "not-a-file"
        while chunk := file.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
