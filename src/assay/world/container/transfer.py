"""Copying files into and out of a running sandbox: tar streams the keeper packs and unpacks with
its own code, so nothing the agent put in the sandbox (a `tar`, a `mkdir`) takes part."""

from __future__ import annotations

import os
import shutil
import tarfile
import tempfile
import threading
from collections.abc import Collection
from pathlib import Path

from assay.world.container.holder import Holder, HolderFailed

COPY_TIMEOUT_S = 600.0
MAX_GET_BYTES = 1 << 30  # what one get may bring out of a sandbox


def put(
    holder: Holder,
    source: Path,
    target: str,
    owner: str | None,
    chmod: str | None = None,
    skip: Collection[Path] = (),
) -> str | None:
    """Copy `source` (file, or a directory's contents less the paths in `skip`, each with what is
    under it) to `target` inside, chmod (octal) being every copied entry's mode; an error line,
    or None."""
    if source.is_dir():
        return _put_tree(holder, source, target, owner, chmod, skip)
    mode = f"{source.stat().st_mode & 0o7777:o}"
    with source.open("rb") as data:
        message = {"op": "put_file", "target": target, "name": source.name, "mode": mode}
        return _ask(holder, {**message, "owner": owner, "chmod": chmod}, [data.fileno()])


def put_archive(holder: Holder, archive: Path, target: str, owner: str | None) -> str | None:
    """Unpack a tar archive (plain or compressed) into `target` inside, as `tar -x` as root does:
    the members' owners kept unless `owner` is given."""
    message = {"op": "put_tree", "target": target, "owner": owner, "keep_owners": True}
    with archive.open("rb") as data:
        return _ask(holder, message, [data.fileno()])


def relay(
    source: Holder, path: str, arcname: str, target: Holder, into: str, options: dict
) -> str | None:
    """Copy `path` of one sandbox into directory `into` of another as `arcname` (`.` for a
    directory's contents), owners kept unless options name an `owner`; an error line, or None.
    The tar stream goes from one keeper to the other and never through the host's files."""
    read_end, write_end = os.pipe()
    message = {"op": "get", "path": path, "arcname": arcname, "owners": True}
    asker, answers = _get_in_background(source, message, write_end)
    try:
        message = {"op": "put_tree", "target": into, "keep_owners": True, **options}
        answer = _ask(target, message, [read_end])
    finally:
        os.close(read_end)
        asker.join()
    found = _found(answers)
    if isinstance(found, str):
        return found
    return answer if found else f"{path} is not there"


def _put_tree(
    holder: Holder,
    source: Path,
    target: str,
    owner: str | None,
    chmod: str | None,
    skip: Collection[Path],
) -> str | None:
    read_end, write_end = os.pipe()
    failures: list[str] = []
    left_out = frozenset(skip)

    def pack() -> None:
        try:
            with (
                os.fdopen(write_end, "wb") as stream,
                tarfile.open(fileobj=stream, mode="w|", format=tarfile.PAX_FORMAT) as archive,
            ):
                if left_out:
                    _add_kept(archive, source, left_out)
                else:
                    archive.add(str(source), arcname=".", recursive=True)
        except (OSError, tarfile.TarError) as error:
            failures.append(str(error))

    packer = threading.Thread(target=pack, daemon=True)
    packer.start()
    message = {"op": "put_tree", "target": target, "owner": owner, "chmod": chmod}
    try:
        answer = _ask(holder, message, [read_end])
    finally:
        os.close(read_end)
        packer.join()
    return answer or (failures[0] if failures else None)


def _add_kept(archive: tarfile.TarFile, source: Path, left_out: frozenset[Path]) -> None:
    """The tree under `source`, less each path of `left_out` with what is under it."""
    archive.add(str(source), arcname=".", recursive=False)
    for directory, subdirectories, files in os.walk(source):
        subdirectories[:] = sorted(n for n in subdirectories if Path(directory, n) not in left_out)
        for name in subdirectories + sorted(files):
            path = Path(directory, name)
            if path not in left_out:
                archive.add(str(path), arcname=f"./{path.relative_to(source)}", recursive=False)


def get(holder: Holder, path: str, target: Path) -> bool | str:
    """Copy `path` out to host `target` (replacing it): True, False when missing, or an error line."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".assay-get-", dir=target.parent))
    read_end, write_end = os.pipe()
    asker, answers = _get_in_background(holder, {"op": "get", "path": path}, write_end)
    try:
        with tempfile.TemporaryFile(dir=target.parent) as spool:
            copied = _spool(read_end, spool)
            asker.join()
            found = _found(answers)
            if found is not True:
                return found
            if copied > MAX_GET_BYTES:
                return f"more than {MAX_GET_BYTES} bytes"
            spool.seek(0)
            _unpack(spool, staging)
        name = os.path.basename(path.rstrip("/")) or "."
        fetched = staging if name == "." else staging / name
        if not os.path.lexists(fetched):
            return False  # its only entry was a link out of the copy, a FIFO or a device
        _replace(target, fetched)
        return True
    finally:
        os.close(read_end)
        shutil.rmtree(staging, ignore_errors=True)


def _get_in_background(
    holder: Holder, message: dict, write_end: int
) -> tuple[threading.Thread, list[dict | str]]:
    """Send a get whose tar stream the keeper writes to `write_end`, from a thread, so that the
    caller drains the pipe meanwhile; the list gets the answer, or the failure's line. The write
    end is closed once the keeper has answered."""
    answers: list[dict | str] = []

    def ask() -> None:
        try:
            answers.append(holder.request(message, [write_end], timeout_s=COPY_TIMEOUT_S))
        except HolderFailed as error:
            answers.append(str(error))
        finally:
            os.close(write_end)

    asker = threading.Thread(target=ask, daemon=True)
    asker.start()
    return asker, answers


def _found(answers: list[dict | str]) -> bool | str:
    """Whether the path a get asked for was there, from the keeper's answer; or an error line."""
    answer = answers[0] if answers else "no answer"
    if isinstance(answer, str):
        return answer
    if "error" in answer:
        return str(answer["error"])
    return bool(answer.get("found"))


def _spool(fd: int, spool) -> int:
    copied = 0
    while chunk := os.read(fd, 1 << 16):
        copied += len(chunk)
        if copied <= MAX_GET_BYTES:
            spool.write(chunk)
    return copied


def _unpack(spool, staging: Path) -> None:
    """Unpack on the host with tarfile's data filter: no absolute or escaping paths or links, no
    devices; a member the filter refuses is left out."""
    with tarfile.open(fileobj=spool, mode="r:") as archive:
        for member in archive:
            try:
                archive.extract(member, staging, filter="data")
            except tarfile.FilterError:
                continue


def _ask(holder: Holder, message: dict, fds: list[int]) -> str | None:
    try:
        answer = holder.request(message, fds, timeout_s=COPY_TIMEOUT_S)
    except HolderFailed as error:
        return str(error)
    return str(answer["error"]) if "error" in answer else None


def _replace(target: Path, fetched: Path) -> None:
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    elif target.exists() or target.is_symlink():
        target.unlink()
    fetched.rename(target)
