"""The digest of what a sandbox changed: its overlay upper dir (or writable dir) walked in order.

It must be the same for the same actions, so what differs between two runs of one solution and is
no state a task grades is left out: below `/var/log` (logs stamp every line), `/var/cache` and
`/var/lib/apt/lists` (apt's binary caches and the package indices it fetched), and the users'
`.cache` folders (pip's and uv's downloads and HTTP cache); and a `.pyc` file is hashed without
its 16-byte header, which holds the source's modification time (the bytecode itself still counts).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

# An overlay mounted in a user namespace marks opaque directories with user.* xattrs.
OPAQUE = ("trusted.overlay.opaque", "user.overlay.opaque")
CHUNK = 1024 * 1024
# Below these (their own entries stay): logs, caches and downloaded indices, never graded state.
UNGRADED = ("/var/log", "/var/cache", "/var/lib/apt/lists", "/root/.cache")
HOME_CACHE = re.compile(r"^/home/[^/]+/\.cache$")
PYC_HEADER = 16  # magic, flags, then the source's mtime and size (PEP 552)


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
        skip = PYC_HEADER if name.endswith(".pyc") else 0
        content = _content_hash(path, skip)
        return f"file\0{name}\0{mode:o}\0{owner}\0{info.st_size}\0{content}"
    return f"special-{stat.S_IFMT(info.st_mode):o}\0{name}\0{mode:o}\0{owner}\0{info.st_rdev}"


def _walk(root: Path):
    for directory, dirnames, filenames in os.walk(root):
        base = Path(directory)
        if ungraded("/" + base.relative_to(root).as_posix()):
            dirnames.clear()  # its own entry was counted; nothing below it is
            continue
        dirnames.sort()
        for name in sorted([*dirnames, *filenames]):
            yield base / name


def ungraded(name: str) -> bool:
    """Whether what lies below the directory `name` (absolute, in the sandbox) is left out."""
    return name in UNGRADED or bool(HOME_CACHE.match(name))


def _is_opaque(path: Path) -> bool:
    for name in OPAQUE:
        try:
            if os.getxattr(path, name, follow_symlinks=False) == b"y":
                return True
        except OSError:
            continue
    return False


def _content_hash(path: Path, skip: int = 0) -> str:
    """The sha256 of the file's bytes after the first `skip`."""
    digest = hashlib.sha256()
    # Never follow a link or wait on a FIFO the sandbox swapped in after the walk saw a file.
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return "unreadable"
    with open(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "not-a-file"
        file.seek(skip)
        while chunk := file.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
