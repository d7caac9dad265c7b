"""Copying files into and out of a running sandbox: tar streams through nsenter, resolved inside."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from assay.world.sandbox.command import DEFAULT_PATH
from assay.world.sandbox.identity import Identity

# `$1` target, `$2` the source's name: a trailing slash or an existing dir receives the file by name.
PUT_FILE = r"""
target=$1
case $target in */) target=$target$2 ;; *) [ -d "$target" ] && target=$target/$2 ;; esac
mkdir -p -- "$(dirname -- "$target")" && cat > "$target" && chmod "$3" -- "$target" || exit 1
if [ -n "$4" ]; then chown -h -- "$4" "$target"; fi
"""
PUT_DIR = r"""target=$1; shift; mkdir -p -- "$target" && exec tar -C "$target" -xf - --no-overwrite-dir "$@" """
# Exit 3 says the path is missing; a path is archived under its own name, so file and dir read alike.
GET = r"""
[ -e "$1" ] || [ -L "$1" ] || exit 3
if [ "$1" = / ]; then exec tar -C / -cf - .; fi
exec tar -C "$(dirname -- "$1")" -cf - -- "$(basename -- "$1")"
"""


def inside(pid1: int, script: str, *args: str) -> list[str]:
    """An `sh` script run as root in the sandbox's mount and pid namespaces, from `env -i`."""
    return [
        *("nsenter", "-t", str(pid1), "-m", "-p", "-r", "-w", "--"),
        *("env", "-i", f"PATH={DEFAULT_PATH}", "LANG=C.UTF-8"),
        *("sh", "-c", script, "sh", *args),
    ]


def put(pid1: int, source: Path, target: str, owner: Identity | None) -> str | None:
    """Copy `source` (file, or a directory's contents) to `target` inside; an error line, or None."""
    if source.is_dir():
        return _put_dir(pid1, source, target, owner)
    mode = f"{source.stat().st_mode & 0o7777:o}"
    chown = f"{owner.uid}:{owner.gid}" if owner else ""
    with source.open("rb") as data:
        done = subprocess.run(
            inside(pid1, PUT_FILE, target, source.name, mode, chown),
            stdin=data,
            capture_output=True,
        )
    return _failure(done.returncode, done.stderr)


def _put_dir(pid1: int, source: Path, target: str, owner: Identity | None) -> str | None:
    # With an owner the archive carries its ids (numeric) and root's extraction keeps them.
    ids = [f"--owner=:{owner.uid}", f"--group=:{owner.gid}"] if owner else []
    keep = ["--numeric-owner", "--same-owner"] if owner else ["--no-same-owner"]
    packed, unpacked = _pipe(
        ["tar", "-C", str(source), *ids, "-cf", "-", "."], inside(pid1, PUT_DIR, target, *keep)
    )
    return _failure(*unpacked) or _failure(*packed)


def get(pid1: int, path: str, target: Path) -> bool | str:
    """Copy `path` out to host `target` (replacing it): True, False when missing, or an error line."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".assay-get-", dir=target.parent))
    try:
        packed, unpacked = _pipe(
            inside(pid1, GET, path),
            ["tar", "-C", str(staging), "-xf", "-", "--no-same-owner", "--no-same-permissions"],
        )
        if packed[0] == 3:
            return False
        failed = _failure(*packed) or _failure(*unpacked)
        if failed:
            return failed
        _replace(target, staging if path.rstrip("/") == "" else staging / Path(path).name)
        return True
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _pipe(producer: list[str], consumer: list[str]) -> tuple[tuple[int, bytes], tuple[int, bytes]]:
    """Run `producer | consumer`; each one's (exit code, stderr)."""
    # stderr goes to files: a pipe nobody reads while the stream runs could fill and stall tar.
    with tempfile.TemporaryFile() as producer_err, tempfile.TemporaryFile() as consumer_err:
        writer = subprocess.Popen(producer, stdout=subprocess.PIPE, stderr=producer_err)
        assert writer.stdout is not None
        with writer.stdout:
            reader = subprocess.run(
                consumer, stdin=writer.stdout, stdout=subprocess.DEVNULL, stderr=consumer_err
            )
        writer.wait()
        producer_err.seek(0)
        consumer_err.seek(0)
        return (writer.returncode, producer_err.read()), (reader.returncode, consumer_err.read())


def _replace(target: Path, fetched: Path) -> None:
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    elif target.exists() or target.is_symlink():
        target.unlink()
    fetched.rename(target)


def _failure(returncode: int, stderr: bytes) -> str | None:
    if returncode == 0:
        return None
    lines = stderr.decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else f"exit status {returncode}"
