"""No sandbox process outlives stop(), the `with` block, or the assay process that started it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sandboxprocs import (
    processes_running,
    unique_seconds,
    wait_until_no_process,
    wait_until_process,
)

from assay.world.container import Sandbox, sandbox_root

STARTER = """
import sys, time
from pathlib import Path
from assay.world.container import Sandbox

box = Sandbox.start(Path(sys.argv[1]))
result = box.exec("sleep " + sys.argv[2] + " > /dev/null 2>&1 &", timeout_s=30)
print(result.exit_code, box.pid1, flush=True)
time.sleep(600)
"""


def test_a_with_block_stops_the_sandbox(start_sandbox: Callable[..., Sandbox]) -> None:
    seconds = unique_seconds()
    with Sandbox.start(sandbox_root() / "scoped") as box:
        box.exec(f"sleep {seconds} &", timeout_s=10)
        assert wait_until_process("sleep", seconds)
    assert not box.alive
    assert processes_running("sleep", seconds) == []


@pytest.mark.parametrize("home_deleted", [False, True])
def test_killing_assay_kills_every_process_of_its_sandboxes(home_deleted: bool) -> None:
    seconds = unique_seconds()
    source = str(Path(__file__).resolve().parents[3] / "src")
    starter = subprocess.Popen(
        [sys.executable, "-c", STARTER, str(sandbox_root() / "orphan"), seconds],
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": source},
    )
    assert starter.stdout is not None
    exit_code, pid1 = starter.stdout.readline().split()
    assert exit_code == b"0"
    assert wait_until_process("sleep", seconds)
    if home_deleted:  # as a caller's temporary directory is, on its way out
        shutil.rmtree(sandbox_root() / "orphan")
    starter.send_signal(signal.SIGKILL)
    starter.wait()
    assert wait_until_no_process("sleep", seconds, within_s=3)
    assert _gone(int(pid1), within_s=3)


def _gone(pid: int, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":
            return True
        time.sleep(0.02)
    return False
