"""The store from the outside: `assay` in a subprocess, killed or interrupted mid-run, then resumed."""

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

ASSAY = [str(Path(sys.executable).with_name("assay"))]
SLOW = f"{Path(__file__).with_name('slow_agent.py')}:SlowAgent"
STUCK = f"{Path(__file__).with_name('stuck_agent.py')}:StuckAgent"
TASK_RUNS = 30  # 15 tasks x 2 repeats, about 0.1 s each
STUCK_TASK = "cancel-unshipped-order"  # the fourth task: three come before it, eleven after


def assay(*args, cwd: Path, env: dict | None = None, check: bool = True):
    ran = subprocess.run(
        [*ASSAY, *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    if check:
        assert ran.returncode == 0, ran.stderr
    return ran


def start_slow_run(cwd: Path, url: str) -> subprocess.Popen:
    return subprocess.Popen(
        [*ASSAY, "run", SHOP, "--agent", SLOW, "--repeats", "2", "--store", url, "--json"],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_interrupt,
    )


def _default_interrupt() -> None:
    # A shell running the suite in the background may ignore SIGINT, and children inherit that.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for_finished(url: str, count: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read()
        try:
            done = query(url, "SELECT count(*) FROM task_runs WHERE phase = 'completed'")[0][0]
        except Exception:  # the store may not exist yet
            done = 0
        if done >= count:
            return
        time.sleep(0.05)
    raise AssertionError("the run did not get going")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path) -> str:
    if request.param == "postgresql":
        return request.getfixturevalue("empty_postgres_store")
    return f"sqlite:///{tmp_path / 'records.db'}"


def wait_for(url: str, sql: str, wanted: list[tuple], process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read()
        try:
            if query(url, sql) == wanted:
                return
        except Exception:  # the store may not exist yet
            pass
        time.sleep(0.05)
    raise AssertionError(f"the store never showed {wanted}")


def test_repeats_land_in_the_default_store_and_read_back(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("ASSAY_STORE", "ASSAY_HOME")}
    ran = json.loads(assay("run", SHOP, "--repeats", "5", "--json", cwd=tmp_path, env=env).stdout)
    run = ran["benchmark_run"]
    assert (run["phase"], run["task_runs"], run["scored"]) == ("completed", 75, 75)
    every_k = {str(k): 1.0 for k in range(1, 6)}
    assert run["pass_at_k"] == every_k
    assert run["pass_hat_k"] == every_k
    assert (tmp_path / ".assay" / "assay.db").exists()

    shown = json.loads(assay("show", run["id"], "--json", cwd=tmp_path, env=env).stdout)
    assert shown["benchmark_run"] == run
    assert [r["id"] for r in shown["task_runs"]] == [r["id"] for r in ran["task_runs"]]
    exported = assay("export", run["id"], cwd=tmp_path, env=env).stdout.splitlines()
    rows = [json.loads(line) for line in exported]
    assert len(rows) == 75
    assert sorted({r["repeat"] for r in rows}) == [0, 1, 2, 3, 4]
    assert {r["outcome"] for r in rows} == {"verified"}
    csv_lines = assay("export", run["id"], "--format", "csv", cwd=tmp_path, env=env).stdout
    assert len(csv_lines.splitlines()) == 76


def test_a_killed_run_keeps_whole_task_runs_and_resume_finishes_it(tmp_path, store_url):
    process = start_slow_run(tmp_path, store_url)
    wait_for_finished(store_url, 5, process)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)

    ((run_id, phase, status),) = query(store_url, "SELECT id, phase, status FROM benchmark_runs")
    assert (phase, status) == ("started", "active")
    states = query(
        store_url,
        "SELECT t.id, t.phase, t.finished_at, count(c.id), count(DISTINCT j.task_run_id) "
        "FROM task_runs t LEFT JOIN check_runs c ON c.task_run_id = t.id "
        "LEFT JOIN trajectories j ON j.task_run_id = t.id GROUP BY t.id, t.phase, t.finished_at",
    )
    assert len(states) == TASK_RUNS
    finished = {row[0]: row[2] for row in states if row[1] == "completed"}
    assert 5 <= len(finished) < TASK_RUNS
    for _, phase, _, checks, trajectory in states:
        # whole or nothing: a finished task run has its check runs and trajectory, others none
        assert (
            (checks > 0 and trajectory == 1)
            if phase == "completed"
            else (checks, trajectory) == (0, 0)
        )
    assert {phase for _, phase, *_ in states} <= {"completed", "started", "created"}

    resumed = assay("run", "--resume", run_id, "--store", store_url, "--json", cwd=tmp_path)
    run = json.loads(resumed.stdout)["benchmark_run"]
    assert (run["id"], run["phase"], run["status"]) == (run_id, "completed", "completed")
    assert run["scored"] + run["not_scored"] == TASK_RUNS
    after = dict(
        query(store_url, "SELECT id, finished_at FROM task_runs WHERE phase = 'completed'")
    )
    assert len(after) == TASK_RUNS
    assert {task_run: after[task_run] for task_run in finished} == finished  # not redone


@pytest.mark.parametrize(("store_kind", "workers"), [("sqlite", 1), ("postgresql", 2)])
def test_a_killed_run_shows_where_each_task_run_stood_and_resume_finishes_it(
    tmp_path, request, store_kind, workers
):
    if store_kind == "postgresql":
        url = request.getfixturevalue("empty_postgres_store")
    else:
        url = f"sqlite:///{tmp_path / 'records.db'}"
    run = [STUCK, "--repeats", "2", "--workers", workers, "--store", url, "--json"]
    process = subprocess.Popen(
        [*ASSAY, "run", SHOP, "--agent", *map(str, run)],
        cwd=tmp_path,
        env={**os.environ, "STUCK_TASK_ID": STUCK_TASK},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # Three tasks finish; then each worker is stuck in a task run of the fourth task.
    phases = "SELECT phase, count(*) FROM task_runs GROUP BY phase ORDER BY phase"
    in_flight = [("completed", 6), ("created", TASK_RUNS - 6 - workers), ("started", workers)]
    wait_for(url, phases, in_flight, process)
    helpers = children(process.pid)  # the workers (and multiprocessing's resource tracker)
    assert len(helpers) >= (workers if workers > 1 else 0)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    wait_until_gone(helpers)  # a worker whose parent is killed outright ends too

    ((run_id, phase, status),) = query(url, "SELECT id, phase, status FROM benchmark_runs")
    assert (phase, status) == ("started", "active")
    states = query(
        url,
        "SELECT t.id, t.task_id, t.phase, t.started_at IS NULL, t.finished_at, count(c.id), "
        "count(DISTINCT j.task_run_id) FROM task_runs t "
        "LEFT JOIN check_runs c ON c.task_run_id = t.id "
        "LEFT JOIN trajectories j ON j.task_run_id = t.id "
        "GROUP BY t.id, t.task_id, t.phase, t.started_at, t.finished_at, t.position "
        "ORDER BY t.position",
    )
    assert {task for _, task, phase, *_ in states if phase == "started"} == {STUCK_TASK}
    assert [phase for _, _, phase, *_ in states] == (
        ["completed"] * 6 + ["started"] * workers + ["created"] * (TASK_RUNS - 6 - workers)
    )
    for _, _, phase, unstarted, finished_at, checks, trajectory in states:
        # whole or nothing: a finished task run has its check runs and trajectory, others none
        assert (unstarted, finished_at is None, checks > 0, trajectory) == {
            "completed": (False, False, True, 1),
            "started": (False, True, False, 0),
            "created": (True, True, False, 0),
        }[phase]
    finished = {row[0]: row[4] for row in states if row[2] == "completed"}

    resumed = assay(
        "run", "--resume", run_id, "--workers", workers, "--store", url, "--json", cwd=tmp_path
    )
    run = json.loads(resumed.stdout)["benchmark_run"]
    assert (run["id"], run["phase"], run["status"]) == (run_id, "completed", "completed")
    assert run["scored"] + run["not_scored"] == TASK_RUNS
    after = dict(query(url, "SELECT id, finished_at FROM task_runs WHERE phase = 'completed'"))
    assert len(after) == TASK_RUNS  # every unfinished one was run again, started or not
    assert {task_run: after[task_run] for task_run in finished} == finished  # not redone


def test_ctrl_c_marks_the_run_cancelled_and_keeps_finished_task_runs(tmp_path):
    url = f"sqlite:///{tmp_path / 'records.db'}"
    process = start_slow_run(tmp_path, url)
    wait_for_finished(url, 3, process)
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=30)
    assert process.returncode == 130
    printed = json.loads(out)["benchmark_run"]
    ((phase, status),) = query(url, "SELECT phase, status FROM benchmark_runs")
    assert (phase, status) == (printed["phase"], printed["status"]) == ("cancelled", "cancelled")
    statuses = dict(query(url, "SELECT phase, count(*) FROM task_runs GROUP BY phase"))
    assert statuses["completed"] >= 3
    assert statuses["completed"] == printed["scored"] + printed["not_scored"]
    unfinished = query(url, "SELECT DISTINCT status FROM task_runs WHERE phase != 'completed'")
    assert unfinished == [("cancelled",)]
