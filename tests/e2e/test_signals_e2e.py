"""`assay run` stopped by real signals: the store says which task runs began, when, and how
they ended (docs/parallel.md; docs/records.md: Cancelling)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest
from processkit import children, wait_until_gone
from storekit import query
from worldkit import SHOP

ASSAY = str(Path(sys.executable).with_name("assay"))
NAP = f"{Path(__file__).with_name('nap_agent.py')}:NapAgent"
NAP_S = 0.5  # how long NapAgent takes over each task run
STUCK = f"{Path(__file__).with_name('stuck_agent.py')}:StuckAgent"
STUCK_TASK = "cancel-unshipped-order"  # the fourth task: three come before it
TASK_RUNS = 30  # 15 tasks x 2 repeats
# A task run handed out just before the signal notes its start when its worker is next scheduled:
# later on a loaded machine (0.2 s was seen to be too little). A task run begun after the signal is
# also caught by the count of those that finished after it: at most one per worker.
LATE_S = NAP_S


def start(url: str, cwd: Path, workers: int, agent: str = NAP, env: dict | None = None):
    """`assay run` in a session of its own, so that a signal can go to its whole process group."""
    return subprocess.Popen(
        [
            ASSAY,
            "run",
            SHOP,
            "--agent",
            agent,
            "--repeats",
            "2",
            "--workers",
            str(workers),
            "--store",
            url,
            "--json",
        ],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # a shell running the suite in the background may ignore SIGINT, and children inherit that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def wait_until(url: str, sql: str, enough, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read()
        try:
            if enough(query(url, sql)[0][0]):
                return
        except Exception:  # the store may not exist yet
            pass
        time.sleep(0.02)
    raise AssertionError(f"the store never showed {sql!r} as wanted")


# Two task runs finished and one in flight.
IN_FLIGHT = (
    "SELECT sum(CASE WHEN phase = 'completed' THEN 1 ELSE 0 END) >= 2 "
    "AND sum(CASE WHEN phase = 'started' THEN 1 ELSE 0 END) >= 1 FROM task_runs"
)


def seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


SEND = {
    "SIGINT to the process": lambda pid: os.kill(pid, signal.SIGINT),
    "SIGTERM to the process": lambda pid: os.kill(pid, signal.SIGTERM),
    "SIGTERM to the group": lambda pid: os.killpg(pid, signal.SIGTERM),
    "SIGINT to the group (Ctrl-C)": lambda pid: os.killpg(pid, signal.SIGINT),
}


@pytest.mark.parametrize(
    ("workers", "how"),
    [(2, how) for how in SEND] + [(1, "SIGINT to the process"), (1, "SIGTERM to the group")],
)
def test_a_stop_lets_what_began_finish_and_starts_nothing_more(tmp_path, workers, how):
    # The store shows a task run in flight, but on a loaded machine it may finish before the
    # signal is sent; such a try proves the rest but not the lower bound, so it is tried again.
    for attempt in range(ATTEMPTS):
        after = stop_and_check(tmp_path / str(attempt), workers, how)
        if after:
            break
    assert 1 <= after <= workers


ATTEMPTS = 3


def stop_and_check(tmp_path: Path, workers: int, how: str) -> int:
    """Signal a run with task runs in flight, check what the store says, and return how many task
    runs finished after the signal."""
    tmp_path.mkdir()
    url = f"sqlite:///{tmp_path / 'records.db'}"
    process = start(url, tmp_path, workers)
    wait_until(url, IN_FLIGHT, bool, process)
    signalled = time.time()
    SEND[how](process.pid)
    out, err = process.communicate(timeout=60)

    assert process.returncode == 130, err
    assert "Traceback" not in err and "Error" not in err, err
    shown = json.loads(out)
    assert shown["benchmark_run"]["phase"] == "cancelled"
    assert query(url, "SELECT phase, status FROM benchmark_runs") == [("cancelled", "cancelled")]

    states = query(
        url,
        "SELECT id, phase, status, started_at, finished_at FROM task_runs ORDER BY position",
    )
    began = [row for row in states if row[3] is not None]
    never = [row for row in states if row[3] is None]
    # every task run that began finished and was kept whole; none was left half-done
    assert {(phase, status) for _, phase, status, *_ in began} == {("completed", "completed")}
    assert {(phase, status, end) for _, phase, status, _, end in never} == {
        ("created", "cancelled", None)
    }
    assert [run["id"] for run in shown["task_runs"]] == [row[0] for row in began]
    # nothing began after the signal, so no more than `workers` finished after it
    starts = [seconds(row[3]) for row in began]
    assert max(starts) < signalled + LATE_S
    after = [row for row in began if seconds(row[4]) > signalled]
    assert len(after) <= workers
    # started_at is when the task run began: about its length before it finished
    durations = {run["id"]: run["duration_s"] for run in shown["task_runs"]}
    for task_run, _, _, started_at, finished_at in began:
        took = seconds(finished_at) - seconds(started_at)
        assert NAP_S * 0.9 <= took < NAP_S + 2, (started_at, finished_at)
        assert abs(took - durations[task_run]) < 0.5
    return len(after)


def test_a_second_ctrl_c_stops_at_once(tmp_path):
    url = f"sqlite:///{tmp_path / 'records.db'}"
    process = start(url, tmp_path, 2, STUCK, {"STUCK_TASK_ID": STUCK_TASK})
    stuck = f"SELECT count(*) FROM task_runs WHERE phase = 'started' AND task_id = '{STUCK_TASK}'"
    wait_until(url, stuck, lambda count: count == 2, process)
    workers = children(process.pid)
    os.killpg(process.pid, signal.SIGINT)
    time.sleep(0.5)
    assert process.poll() is None  # the first waits for the two task runs in flight
    stopped = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert time.monotonic() - stopped < 10
    assert process.returncode == 130 and "Traceback" not in err, err
    wait_until_gone(workers)
    assert json.loads(out)["benchmark_run"]["phase"] == "cancelled"
    counts = query(
        url,
        "SELECT phase, status, started_at IS NULL, count(*) FROM task_runs "
        "GROUP BY phase, status, started_at IS NULL ORDER BY phase",
    )
    # the two stopped in flight began and did not finish; the rest never began
    assert counts == [
        ("completed", "completed", False, 6),
        ("created", "cancelled", True, TASK_RUNS - 8),
        ("started", "cancelled", False, 2),
    ]


def test_a_killed_run_marks_started_only_what_began(tmp_path):
    url = f"sqlite:///{tmp_path / 'records.db'}"
    process = start(url, tmp_path, 2)
    finished = "SELECT count(*) FROM task_runs WHERE phase = 'completed'"
    wait_until(url, finished, lambda done: done >= 2, process)
    workers = children(process.pid)
    killed = time.time()
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    wait_until_gone(workers)
    states = query(url, "SELECT phase, started_at, finished_at FROM task_runs")
    in_flight = [started for phase, started, _ in states if phase == "started"]
    assert len(in_flight) <= 2
    assert all(seconds(started) < killed + LATE_S for started in in_flight)
    assert all(started is None for phase, started, _ in states if phase == "created")
    for phase, started, ended in states:
        if phase == "completed":
            assert seconds(ended) - seconds(started) >= NAP_S * 0.9
