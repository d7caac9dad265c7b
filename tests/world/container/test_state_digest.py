"""The final-state digest is the same for the same actions: logs, caches and a bytecode header
left out, everything an agent could be graded on kept in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assay.world.container.changes import tree_digest

PYC_BODY = b"\xe3" + b"\x00" * 40  # what follows the header: the code object


def upper(root: Path, *, stamp: int) -> Path:
    """An upper dir as a solution leaves it, with `stamp` wherever a time gets written."""
    files = {
        "app/answer.txt": b"42\n",
        "var/log/dpkg.log": f"{stamp} install jq\n".encode(),
        "var/log/apt/history.log": f"Start-Date: {stamp}\n".encode(),
        "var/cache/apt/pkgcache.bin": stamp.to_bytes(8, "little"),
        "var/lib/apt/lists/deb.debian.org_InRelease": f"Date: {stamp}\n".encode(),
        "root/.cache/pip/http/entry": stamp.to_bytes(8, "little"),
        "home/agent/.cache/uv/entry": stamp.to_bytes(8, "little"),
        # magic, flags, then the source's mtime and size, then the bytecode
        "app/__pycache__/mod.cpython-311.pyc": b"\xa7\r\r\n\0\0\0\0"
        + stamp.to_bytes(4, "little")
        + b"\x0b\0\0\0"
        + PYC_BODY,
    }
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def test_two_runs_that_differ_only_in_logs_caches_and_times_have_one_digest(tmp_path: Path):
    first = tree_digest(upper(tmp_path / "a", stamp=1_700_000_001))
    second = tree_digest(upper(tmp_path / "b", stamp=1_700_000_002))
    assert first == second


@pytest.mark.parametrize(
    "change",
    [
        "app/answer.txt",  # what the task asked for
        "app/__pycache__/mod.cpython-311.pyc",  # the bytecode itself
        "var/lib/dpkg/status",  # a package installed is state
        "home/agent/.config/tool.toml",  # only .cache folders are left out
        "var/logbook.txt",  # a look-alike of /var/log
    ],
)
def test_a_change_outside_them_changes_the_digest(tmp_path: Path, change: str):
    before = tree_digest(upper(tmp_path / "a", stamp=1))
    root = upper(tmp_path / "b", stamp=1)
    path = root / change
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as file:
        file.write(b"changed")
    assert tree_digest(root) != before


def test_the_left_out_folders_themselves_still_count(tmp_path: Path):
    before = tree_digest(upper(tmp_path / "a", stamp=1))
    root = upper(tmp_path / "b", stamp=1)
    os.chmod(root / "var" / "log", 0o700)
    assert tree_digest(root) != before
