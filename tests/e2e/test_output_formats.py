"""Piped tables: a row is never wrapped, a task id never split, whatever $COLUMNS says."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from worldkit import LONG_ID, shop_with_a_long_task_id

ASSAY = str(Path(sys.executable).parent / "assay")


@pytest.fixture
def long_world(tmp_path: Path) -> Path:
    return shop_with_a_long_task_id(tmp_path / "shop")


@pytest.fixture
def piped(tmp_path: Path, assay_home: Path):
    """`assay ARGS…` with stdout a pipe, in an 80-column environment."""

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "ASSAY_HOME": str(assay_home), "COLUMNS": "80"}
        return subprocess.run(
            [ASSAY, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )

    return run


def test_a_piped_table_keeps_a_long_task_id_on_one_line(piped, long_world):
    done = piped("run", str(long_world), "--agent", "reference", "--task", LONG_ID)
    assert done.returncode == 0, done.stderr
    (row,) = [line for line in done.stdout.splitlines() if LONG_ID in line]
    assert "verified" in row  # the task and its outcome share the line
    run_id = done.stdout.split("benchmark run ")[1].split()[0]
    shown = piped("show", run_id)
    assert any(LONG_ID in line and "verified" in line for line in shown.stdout.splitlines())
    listed = piped("runs")
    assert any(run_id in line and "reference" in line for line in listed.stdout.splitlines())
