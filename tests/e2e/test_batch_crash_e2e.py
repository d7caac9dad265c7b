"""The crash boundary of batched writes: `assay run` killed outright mid-run keeps whole batches
only, and `--resume` finishes the run with every task run present once, graded as an
uninterrupted run grades it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from storekit import query
from worldkit import SHOP

ASSAY = [str(Path(sys.executable).with_name("assay"))]
TASKS = ["--task", "refund-double-charge", "--task", "email-tracking"]
REPEATS = 500  # 1,000 fast task runs: about a second or more, so the kill lands mid-run


def assay(*args: str, cwd: Path) -> dict:
    ran = subprocess.run([*ASSAY, *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


def graded(result: dict) -> tuple:
    """What grading says of a task run, without its ids and times."""
    checks = [(c["name"], c["passed"], c["score"], c["details"]) for c in result["checks"]]
    return (
        result["outcome"],
        result["reward"],
        result["score"],
        result["verdict"],
        result["final_state_hash"],
        checks,
    )


def completed(url: str) -> int:
    try:
        return query(url, "SELECT count(*) FROM task_runs WHERE phase = 'completed'")[0][0]
    except Exception:  # the store may not exist yet
        return 0


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path) -> str:
    if request.param == "postgresql":
        return request.getfixturevalue("empty_postgres_store")
    return f"sqlite:///{tmp_path / 'records.db'}"


def test_a_run_killed_mid_batch_resumes_to_every_task_run_once_graded_as_uninterrupted(
    tmp_path, store_url
):
    command = [*ASSAY, "run", str(SHOP), *TASKS, "--repeats", str(REPEATS), "--workers", "1"]
    process = subprocess.Popen(
        [*command, "--store", store_url, "--json"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while completed(store_url) == 0:  # a first batch is committed
        assert process.poll() is None, process.stderr.read()
        assert time.monotonic() < deadline, "no batch was ever committed"
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)

    ((run_id, phase),) = query(store_url, "SELECT id, phase FROM benchmark_runs")
    assert phase == "started"
    kept = completed(store_url)
    assert 0 < kept < 2 * REPEATS
    wholes = query(
        store_url,
        "SELECT t.phase, count(c.id), count(DISTINCT j.task_run_id) FROM task_runs t "
        "LEFT JOIN check_runs c ON c.task_run_id = t.id "
        "LEFT JOIN trajectories j ON j.task_run_id = t.id GROUP BY t.id, t.phase",
    )
    for phase, checks, trajectory in wholes:  # whole or nothing
        assert (checks > 0, trajectory) == ((True, 1) if phase == "completed" else (False, 0))

    resumed = assay("run", "--resume", run_id, "--store", store_url, "--json", cwd=tmp_path)
    assert resumed["benchmark_run"]["phase"] == "completed"
    assert resumed["benchmark_run"]["outcomes"]["verified"] == 2 * REPEATS
    pairs = query(
        store_url,
        "SELECT task_id, repeat, count(*) FROM task_runs WHERE phase = 'completed' "
        "GROUP BY task_id, repeat",
    )
    assert len(pairs) == 2 * REPEATS
    assert {count for *_, count in pairs} == {1}
    assert {repeat for _, repeat, _ in pairs} == set(range(REPEATS))
    assert query(store_url, "SELECT count(*) FROM trajectories")[0][0] == 2 * REPEATS

    whole = assay("run", str(SHOP), *TASKS, "--repeats", "2", "--json", cwd=tmp_path)
    wanted = {run["task_id"]: graded(run) for run in whole["task_runs"]}
    got = resumed["task_runs"]
    assert len(got) == 2 * REPEATS
    assert all(graded(run) == wanted[run["task_id"]] for run in got)
    checks = query(store_url, "SELECT count(*) FROM check_runs")[0][0]
    assert checks == sum(len(run["checks"]) for run in got)  # none twice
