"""`assay run --workers N` and `--world-db URL`, as a user runs them: in a subprocess."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ASSAY = [str(Path(sys.executable).parent / "assay")]


def _assay(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ASSAY, *args], cwd=ROOT, capture_output=True, text=True, env={**os.environ, **(env or {})}
    )


def test_a_run_on_postgresql_matches_sqlite(postgres_url: str) -> None:
    tasks = ["--task", "refund-double-charge", "--task", "email-tracking"]
    on_postgres = _assay(
        "run", "worlds/shop", *tasks, "--world-db", postgres_url, "--workers", "2", "--json"
    )
    on_sqlite = _assay("run", "worlds/shop", *tasks, "--json")
    assert on_postgres.returncode == 0, on_postgres.stderr
    runs = [json.loads(done.stdout)["task_runs"] for done in (on_postgres, on_sqlite)]
    assert [run["outcome"] for run in runs[0]] == ["verified", "verified"]
    assert [run["final_state_hash"] for run in runs[0]] == [r["final_state_hash"] for r in runs[1]]


def test_the_environment_names_the_server(postgres_url: str) -> None:
    done = _assay(
        "run",
        "worlds/shop",
        "--task",
        "update-address",
        "--json",
        env={"ASSAY_WORLD_DB": postgres_url},
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["benchmark_run"]["outcomes"]["verified"] == 1


def test_a_bad_world_db_is_one_line_and_exit_2() -> None:
    done = _assay("run", "worlds/shop", "--world-db", "mysql://root@127.0.0.1/shop")
    assert done.returncode == 2
    assert done.stderr == (
        "error: --world-db: not a PostgreSQL URL: 'mysql://root@127.0.0.1/shop' "
        "(postgresql://user@host:port/database)\n"
    )


def test_an_unreachable_world_db_is_one_line_and_exit_2() -> None:
    done = _assay("run", "worlds/shop", "--world-db", "postgresql://postgres@127.0.0.1:1/postgres")
    assert done.returncode == 2
    assert done.stderr.startswith("error: --world-db: cannot connect to PostgreSQL: ")
    assert done.stderr.count("\n") == 1


def test_workers_below_one_are_refused() -> None:
    done = _assay("run", "worlds/shop", "--workers", "0")
    assert done.returncode == 2
    assert "--workers" in done.stderr and "Traceback" not in done.stderr


def test_two_workers_give_the_same_json_as_one() -> None:
    outputs = []
    for workers in ("1", "2"):
        done = _assay("run", "worlds/shop", "--workers", workers, "--agent", "noop", "--json")
        assert done.returncode == 0, done.stderr
        runs = json.loads(done.stdout)["task_runs"]
        outputs.append(
            [(r["task_id"], r["outcome"], r["score"], r["final_state_hash"]) for r in runs]
        )
    assert outputs[0] == outputs[1] and len(outputs[0]) == 15


FINISHED = "slow agent finished a task run"  # what tests/runs/slow_agent.py says on stderr


def test_ctrl_c_marks_the_run_cancelled_and_keeps_finished_task_runs(tmp_path: Path) -> None:
    agent = f"{ROOT / 'tests' / 'runs' / 'slow_agent.py'}:SlowAgent"
    process = subprocess.Popen(
        [
            *ASSAY,
            "run",
            "worlds/shop",
            "--agent",
            agent,
            "--workers",
            "2",
            "--repeats",
            "4",
            "--json",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a shell may start this test with Ctrl-C ignored, and children inherit that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stderr is not None
    said: list[str] = []
    while len([line for line in said if line.strip() == FINISHED]) < 3:
        said.append(process.stderr.readline())  # the agent's prints reach assay's stderr
        assert said[-1], "".join(said)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    stderr = "".join(said) + stderr
    assert process.returncode == 130, stderr
    outcome = json.loads(stdout)
    assert outcome["benchmark_run"]["phase"] == "cancelled"
    kept = outcome["task_runs"]
    assert 3 <= len(kept) < 60
    assert all(run["status"] == "completed" and run["outcome"] != "not_scored" for run in kept)
