"""The package cache on disk: files named by what they hold, written whole or not at all (a temporary
file renamed into place), shared by every assay process of the machine, its size kept under a bound
by removing what was used least recently."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.world.snapshot import cache_dir

DEFAULT_LIMIT_MB = 10 * 1024
LIMIT_ENV = "ASSAY_PACKAGE_CACHE_MB"
PART = ".part"
STALE_PART_S = 3600.0  # a temporary file this old was left by a process that died
SWEEP_EVERY = 0.05  # of the limit, written by this process between two sweeps
KEEP_AFTER_SWEEP = 0.9  # of the limit


def packages_dir() -> Path:
    """Where the package cache lives: `packages/` under assay's cache directory."""
    return (cache_dir() / "packages").resolve()


_stores: dict[Path, Store] = {}
_stores_lock = threading.Lock()


def store_at(root: Path) -> Store:
    """The one Store of this process for `root`, so that what it wrote counts toward a sweep."""
    with _stores_lock:
        if root not in _stores:
            _stores[root] = Store(root)
        return _stores[root]


def limit_bytes() -> int:
    """The bound on the cache's size: $ASSAY_PACKAGE_CACHE_MB, else 10 GiB."""
    try:
        return max(int(os.environ.get(LIMIT_ENV, DEFAULT_LIMIT_MB)), 1) << 20
    except ValueError:
        return DEFAULT_LIMIT_MB << 20


@dataclass
class Store:
    """Files under `root`, each at a relative path chosen by a face of the cache."""

    root: Path
    _written: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def path(self, relative: str) -> Path:
        return self.root / relative

    def find(self, relative: str) -> Path | None:
        """The cached file, its time of use renewed (what is used least recently goes first)."""
        path = self.root / relative
        try:
            os.utime(path)
        except FileNotFoundError:
            return None
        return path

    def find_json(self, relative: str) -> dict[str, Any] | None:
        """The cached JSON object (`find`); None when missing, unreadable or not an object."""
        path = self.find(relative)
        if path is None:
            return None
        try:
            found = json.loads(path.read_bytes())
        except (OSError, ValueError):
            return None
        return found if isinstance(found, dict) else None

    @contextlib.contextmanager
    def writing(self, relative: str) -> Iterator[Writer]:
        """A writer whose file takes its place at `relative` only when `commit()` was called
        before the block ends; otherwise it is removed."""
        target = self.root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        part = target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}{PART}")
        writer = Writer(part, open(part, "wb"))  # noqa: SIM115  (closed below)
        try:
            yield writer
        finally:
            writer.file.close()
            if writer.committed:
                os.replace(part, target)
                self._count(writer.size)
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(part)

    def put(self, relative: str, data: bytes) -> None:
        with self.writing(relative) as writer:
            writer.write(data)
            writer.commit()

    def _count(self, size: int) -> None:
        with self._lock:
            self._written += size
            due = self._written >= limit_bytes() * SWEEP_EVERY
            if due:
                self._written = 0
        if due:
            threading.Thread(target=self.sweep, name="assay-package-sweep", daemon=True).start()

    def sweep(self) -> int:
        """Remove the least recently used files until the cache is under 90 % of its bound, and
        temporary files a dead process left; returns the bytes removed."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".sweep.lock", "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return 0  # another process sweeps now
            files, total, removed = [], 0, 0
            now = time.time()
            for path, info in _walk(self.root):
                if path.name.endswith(PART):
                    if now - info.st_mtime > STALE_PART_S:
                        removed += _remove(path, info.st_size)
                    continue
                files.append((info.st_mtime, info.st_size, path))
                total += info.st_size
            limit = limit_bytes()
            if total <= limit:
                return removed
            for _, size, path in sorted(files):
                if total <= limit * KEEP_AFTER_SWEEP:
                    break
                total -= size
                removed += _remove(path, size)
            return removed


@dataclass
class Writer:
    """A file being written, with the hashes of what went in."""

    path: Path
    file: object
    size: int = 0
    committed: bool = False
    sha256: hashlib._Hash = field(default_factory=hashlib.sha256)
    blake2b: hashlib._Hash = field(default_factory=lambda: hashlib.blake2b(digest_size=32))

    def write(self, data: bytes) -> None:
        self.file.write(data)  # type: ignore[attr-defined]
        self.sha256.update(data)
        self.blake2b.update(data)
        self.size += len(data)

    def commit(self) -> None:
        self.committed = True


def _walk(root: Path) -> Iterator[tuple[Path, os.stat_result]]:
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False) and entry.name != ".sweep.lock":
                    yield Path(entry.path), entry.stat(follow_symlinks=False)
            except OSError:
                continue


def _remove(path: Path, size: int) -> int:
    try:
        os.unlink(path)
    except OSError:
        return 0
    return size
