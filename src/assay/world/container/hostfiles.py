"""Reading, from the host, files a sandbox wrote, so that nothing it left can turn a read against the
host: no link is followed (in the last component or, below a trusted `base`, in any), a FIFO never
blocks, and only regular files are read."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
DIR_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC
WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
BLOCK = 1 << 20
# Opening through a link with O_NOFOLLOW gives ELOOP; a link or file where a directory was
# wanted gives ENOTDIR: both mean "not what the reader may read", like a missing file.
REFUSED = (errno.ENOENT, errno.ELOOP, errno.ENOTDIR)


class TooLarge(OSError):
    """A file longer than the limit its reader set."""


def read_capped(path: Path, limit: int, *, base: Path | None = None) -> bytes | None:
    """The file's bytes; None when it is missing or not a regular file; TooLarge past `limit`.

    base: a trusted directory above `path`; no component between it and the file may be a link.
    """
    with _regular(path, base) as fd:
        if fd is None:
            return None
        data = _read(fd, limit + 1)
    if len(data) > limit:
        raise TooLarge(errno.EFBIG, f"larger than {limit} bytes", str(path))
    return data


def tail_of(path: Path, size: int, *, base: Path | None = None) -> bytes:
    """The last `size` bytes of a regular file; b"" when there is none or it cannot be read."""
    try:
        with _regular(path, base) as fd:
            if fd is None:
                return b""
            end = os.fstat(fd).st_size
            os.lseek(fd, max(end - size, 0), os.SEEK_SET)
            return _read(fd, size)
    except OSError:
        return b""


def head_of(path: Path, size: int, *, base: Path | None = None) -> bytes:
    """The first `size` bytes of a regular file; b"" when there is none or it cannot be read."""
    try:
        with _regular(path, base) as fd:
            return b"" if fd is None else _read(fd, size)
    except OSError:
        return b""


def contains(path: Path, text: bytes, *, base: Path | None = None) -> bool:
    """Whether a regular file holds `text`, read in blocks (a test's output may be large)."""
    try:
        with _regular(path, base) as fd:
            if fd is None:
                return False
            carry = b""
            while block := os.read(fd, BLOCK):
                if text in carry + block:
                    return True
                carry = block[-len(text) :] if text else b""
    except OSError:
        return False
    return False


def line_starting(
    path: Path, prefix: bytes, *, base: Path | None = None, longest: int = 1000
) -> str | None:
    """The first line of a regular file that starts with `prefix`, as text cut to `longest`
    characters and without its line end; None when no line does (or the file cannot be read)."""
    try:
        with _regular(path, base) as fd:
            if fd is None:
                return None
            pending = b""
            while block := os.read(fd, BLOCK):
                *lines, pending = (pending + block).split(b"\n")
                found = next((line for line in lines if line.startswith(prefix)), None)
                if found is not None:
                    return found[: longest * 4].decode(errors="replace").rstrip("\r")[:longest]
                # a line longer than a block keeps only what can still be shown of it
                pending = pending[: max(len(prefix), longest * 4)]
    except OSError:
        return None
    if pending.startswith(prefix):
        return pending.decode(errors="replace").rstrip("\r")[:longest]
    return None


def copy_tree(source: Path, target: Path, *, limit_bytes: int) -> list[str]:
    """Copy directories and regular files from `source` into `target`, links made again as links
    (never followed), FIFOs, devices and sockets skipped; past `limit_bytes` in all, files are
    skipped. Returns a note for each thing skipped (`copy_skipped:<why>:<relative path>`)."""
    target.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    budget = [limit_bytes]
    try:
        source_fd = os.open(source, DIR_FLAGS)
    except OSError as error:
        if error.errno in REFUSED:
            return [f"copy_skipped:{_what_is(source)}:."]
        raise
    try:
        target_fd = os.open(target, DIR_FLAGS)
        try:
            _copy_dir(source_fd, target_fd, "", budget, notes)
        finally:
            os.close(target_fd)
    finally:
        os.close(source_fd)
    return notes


# -- opening -----------------------------------------------------------------------------------


@contextmanager
def _regular(path: Path, base: Path | None) -> Iterator[int | None]:
    """An open descriptor of the regular file at `path`, or None for a missing or other file."""
    try:
        fd = _open_file(path, base)
    except OSError as error:
        if error.errno in REFUSED:
            yield None
            return
        raise
    try:
        yield fd if stat.S_ISREG(os.fstat(fd).st_mode) else None
    finally:
        os.close(fd)


def _open_file(path: Path, base: Path | None) -> int:
    if base is None:
        return os.open(path, FILE_FLAGS)
    parts = _parts_below(path, base)
    directory = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)  # trusted: may be a link
    try:
        for part in parts[:-1]:
            inner = os.open(part, DIR_FLAGS, dir_fd=directory)
            os.close(directory)
            directory = inner
        return os.open(parts[-1], FILE_FLAGS, dir_fd=directory)
    finally:
        os.close(directory)


def _parts_below(path: Path, base: Path) -> list[str]:
    """The components of `path` below `base`; ValueError when it is not below, or climbs back."""
    parts = list(Path(path).relative_to(base).parts)
    if not parts or any(part in ("..", ".") for part in parts):
        raise ValueError(f"{path} is not a file below {base}")
    return parts


def _read(fd: int, most: int) -> bytes:
    chunks = []
    left = most
    while left > 0 and (chunk := os.read(fd, min(left, BLOCK))):
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _what_is(path: Path) -> str:
    """What stands where a directory was wanted, for a note."""
    if path.is_symlink():
        return "link"
    return "not_directory" if os.path.lexists(path) else "missing"


# -- copying -----------------------------------------------------------------------------------


def _copy_dir(source: int, target: int, prefix: str, budget: list[int], notes: list[str]) -> None:
    """Copy the entries of the open directory `source` into the open directory `target`."""
    with os.scandir(source) as entries:
        names = sorted(entry.name for entry in entries)
    for name in names:
        relative = f"{prefix}{name}"
        try:
            info = os.lstat(name, dir_fd=source)
        except FileNotFoundError:
            continue  # gone since the directory was listed
        mode = info.st_mode
        if stat.S_ISLNK(mode):
            _copy_link(source, target, name, relative, notes)
        elif stat.S_ISDIR(mode):
            _copy_subdir(source, target, name, relative, budget, notes)
        elif stat.S_ISREG(mode):
            _copy_file(source, target, name, relative, budget, notes)
        else:
            notes.append(f"copy_skipped:{_special(mode)}:{relative}")


def _copy_link(source: int, target: int, name: str, relative: str, notes: list[str]) -> None:
    link = os.readlink(name, dir_fd=source)
    if not _make_room(target, name, relative, notes):
        return
    os.symlink(link, name, dir_fd=target)


def _copy_subdir(
    source: int, target: int, name: str, relative: str, budget: list[int], notes: list[str]
) -> None:
    inner_source = _open_unchanged(source, name, DIR_FLAGS, relative, notes)
    if inner_source is None:
        return
    try:
        inner_target = _target_dir(target, name)
        if inner_target is None:
            notes.append(f"copy_skipped:target_not_directory:{relative}")
            return
        try:
            _copy_dir(inner_source, inner_target, f"{relative}/", budget, notes)
        finally:
            os.close(inner_target)
    finally:
        os.close(inner_source)


def _open_unchanged(
    source: int, name: str, flags: int, relative: str, notes: list[str]
) -> int | None:
    """`name` under `source` opened; None, noted, when it was swapped for something else since it
    was listed (gone, or now a link)."""
    try:
        return os.open(name, flags, dir_fd=source)
    except OSError as error:
        if error.errno not in REFUSED:
            raise
        notes.append(f"copy_skipped:changed:{relative}")
        return None


def _target_dir(target: int, name: str) -> int | None:
    """The directory `name` under `target`, made if missing; None when something else is there."""
    with suppress(FileExistsError):
        os.mkdir(name, 0o755, dir_fd=target)
    try:
        return os.open(name, DIR_FLAGS, dir_fd=target)
    except OSError as error:
        if error.errno not in REFUSED:
            raise
        return None


def _copy_file(
    source: int, target: int, name: str, relative: str, budget: list[int], notes: list[str]
) -> None:
    fd = _open_unchanged(source, name, FILE_FLAGS, relative, notes)
    if fd is None:
        return
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            notes.append(f"copy_skipped:changed:{relative}")
        elif info.st_size > budget[0]:
            notes.append(f"copy_skipped:over_limit:{relative}")
        elif _make_room(target, name, relative, notes):
            written = _stream(fd, target, name, info, budget[0])
            if written is None:  # it grew past the limit while being copied
                os.unlink(name, dir_fd=target)
                notes.append(f"copy_skipped:over_limit:{relative}")
            else:
                budget[0] -= written
    finally:
        os.close(fd)


def _stream(fd: int, target: int, name: str, info: os.stat_result, most: int) -> int | None:
    """Copy the open file into `name` under `target`; None once more than `most` bytes came."""
    # Permission bits only: a set-user-id bit the sandbox set means nothing good on the host.
    out = os.open(name, WRITE_FLAGS, info.st_mode & 0o777, dir_fd=target)
    written = 0
    try:
        while block := os.read(fd, BLOCK):
            written += len(block)
            if written > most:
                return None
            view = memoryview(block)
            while view:
                view = view[os.write(out, view) :]
        os.fchmod(out, info.st_mode & 0o777)
        os.utime(out, ns=(info.st_atime_ns, info.st_mtime_ns))
    finally:
        os.close(out)
    return written


def _make_room(target: int, name: str, relative: str, notes: list[str]) -> bool:
    """Remove what the target holds under `name`, unless it is a directory (then say so)."""
    try:
        existing = os.lstat(name, dir_fd=target)
    except FileNotFoundError:
        return True
    if stat.S_ISDIR(existing.st_mode):
        notes.append(f"copy_skipped:target_is_directory:{relative}")
        return False
    os.unlink(name, dir_fd=target)
    return True


def _special(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special"
