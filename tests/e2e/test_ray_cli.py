"""`assay run --executor ray`, as a user runs it: a local Ray instance started for the run, and
Ctrl-C from a terminal reaching the whole process group, Ray's own processes with it
(docs/parallel.md). One Ray start: it costs seconds."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processkit import children, wait_until_gone
from storekit import query
from worldkit import SHOP

pytest.importorskip("ray")

ASSAY = str(Path(sys.executable).with_name("assay"))
NAP = f"{Path(__file__).with_name('nap_agent.py')}:NapAgent"  # 0.5 s per task run
IN_FLIGHT = (  # two task runs finished and one in flight
    "SELECT sum(CASE WHEN phase = 'completed' THEN 1 ELSE 0 END) >= 2 "
    "AND sum(CASE WHEN phase = 'started' THEN 1 ELSE 0 END) >= 1 FROM task_runs"
)


def wait_until_in_flight(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read()
        try:
            if query(url, IN_FLIGHT)[0][0]:
                return
        except Exception:  # the store may not exist yet
            pass
        time.sleep(0.05)
    raise AssertionError("no task run was ever in flight after two had finished")


def test_ctrl_c_to_the_group_keeps_what_began_whole_and_leaves_no_ray_behind(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'records.db'}"
    args = ["run", SHOP, "--agent", NAP, "--repeats", "2", "--executor", "ray", "--workers", "2"]
    process = subprocess.Popen(
        [ASSAY, *args, "--store", url, "--json"],
        cwd=tmp_path,
        # with no --ray-address a local Ray is started, whatever $RAY_ADDRESS says
        env={**os.environ, "RAY_ADDRESS": "127.0.0.1:1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a group of its own, as a terminal gives a command
        # a shell running the suite in the background may ignore SIGINT, and children inherit that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    wait_until_in_flight(url, process)
    started = children(process.pid)  # Ray's processes among them
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=120)

    assert process.returncode == 130, err
    assert "Traceback" not in err, err
    shown = json.loads(out)
    assert shown["benchmark_run"]["phase"] == "cancelled"
    states = query(url, "SELECT id, phase, status, started_at FROM task_runs ORDER BY position")
    began = [row for row in states if row[3] is not None]
    never = [row for row in states if row[3] is None]
    # every task run that began finished and was kept whole, Ray's processes having ignored the
    # Ctrl-C; those never begun are marked so; no more began than the two in flight at it
    assert {(phase, status) for _, phase, status, _ in began} == {("completed", "completed")}
    assert {(phase, status) for _, phase, status, _ in never} == {("created", "cancelled")}
    assert [run["id"] for run in shown["task_runs"]] == [row[0] for row in began]
    assert all(run["outcome"] == "not_achieved" for run in shown["task_runs"])
    assert 3 <= len(began) < len(states)
    wait_until_gone(started)
