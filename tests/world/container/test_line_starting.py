"""Finding the first line that starts with a marker in a file the sandbox wrote."""

from __future__ import annotations

import os
from pathlib import Path

from assay.world.container.hostfiles import BLOCK, line_starting

MARK = b"[assay-tooling] refused:"


def test_the_first_line_with_the_marker_at_its_start(tmp_path: Path):
    path = tmp_path / "out.txt"
    path.write_bytes(
        b"x [assay-tooling] refused: quoted\n" + MARK + b" uv init\r\n" + MARK + b" 2\n"
    )
    assert line_starting(path, MARK) == "[assay-tooling] refused: uv init"


def test_a_line_across_blocks_and_a_last_line_without_an_end(tmp_path: Path):
    path = tmp_path / "out.txt"
    path.write_bytes(b"a" * (BLOCK - 5) + b"\n" + MARK + b" far")
    assert line_starting(path, MARK) == "[assay-tooling] refused: far"


def test_a_very_long_line_is_cut_and_found(tmp_path: Path):
    path = tmp_path / "out.txt"
    path.write_bytes(b"b" * (3 * BLOCK) + b"\n" + MARK + b" " + b"y" * (2 * BLOCK) + b"\n")
    found = line_starting(path, MARK, longest=50)
    assert found is not None and found.startswith("[assay-tooling] refused: yyy")
    assert len(found) == 50


def test_none_when_missing_absent_or_a_link(tmp_path: Path):
    path = tmp_path / "out.txt"
    path.write_bytes(b"all good\n")
    assert line_starting(path, MARK) is None
    assert line_starting(tmp_path / "absent", MARK) is None
    target = tmp_path / "elsewhere.txt"
    target.write_bytes(MARK + b" from outside\n")
    os.symlink(target, tmp_path / "link.txt")
    assert line_starting(tmp_path / "link.txt", MARK) is None
