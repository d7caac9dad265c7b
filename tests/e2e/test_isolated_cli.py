"""`assay run` with a Python class agent that fails in every way it can: each failure is its own task
run's, not scored on the agent's side, and the benchmark run carries on to the end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from worldkit import SHOP, write_world

ASSAY = [str(Path(sys.executable).with_name("assay"))]
HERE = Path(__file__).parent
CHAOS = f"{HERE / 'chaos_agent.py'}:ChaosAgent"
FORGER = f"{HERE.parent / 'taskrun' / 'isolation_agents.py'}:Forger"

FAILURES = {
    "delivered-spend": "SystemExit: 5",
    "email-after-failure": "KeyboardInterrupt",
    "email-tracking": "the agent's process ended (exit code 3)",
    "goodwill-credit": "returned an action that is not JSON: Circular reference detected",
    "refund-double-charge": (
        "no action within 1 s, the per-action time limit (--action-timeout); "
        "its process was stopped"
    ),
}


def assay(*args, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*ASSAY, *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("workers", [1, 2])
def test_each_failure_is_only_its_task_runs_and_the_run_completes(tmp_path, workers):
    marks = tmp_path / "marks"
    marks.mkdir()
    ran = assay(
        "run", SHOP, "--agent", CHAOS, "--workers", workers, "--action-timeout", 1, "--json",
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(marks)},  # where the agent marks, run as a process
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "Traceback" not in ran.stderr
    assert "working on" in ran.stderr  # the agent's prints, moved off stdout
    outcome = json.loads(ran.stdout)
    assert outcome["benchmark_run"]["phase"] == "completed"
    runs = outcome["task_runs"]
    assert len(runs) == 15
    failed = {run["task_id"]: run["error"] for run in runs if run["outcome"] == "not_scored"}
    broke_first = [
        task for task, error in failed.items() if error["message"].startswith("__init__")
    ]
    assert 1 <= len(broke_first) <= workers  # once in each worker's agent: they share nothing
    assert failed.pop(broke_first[0]) == {
        "side": "agent",
        "message": "__init__ raised RuntimeError: the first one breaks",
    }
    for task in broke_first[1:]:
        assert failed.pop(task)["message"] == "__init__ raised RuntimeError: the first one breaks"
    expected = {task: message for task, message in FAILURES.items() if task not in broke_first}
    assert failed == {task: {"side": "agent", "message": text} for task, text in expected.items()}
    others = [run for run in runs if run["outcome"] != "not_scored"]
    assert len(others) == 15 - len(broke_first) - len(expected)
    assert all(run["status"] == "completed" and run["error"] is None for run in others)


def test_a_forging_agent_is_not_verified(tmp_path):
    world = write_world(tmp_path / "desk")
    ran = assay("run", world, "--agent", FORGER, "--json", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    (run,) = json.loads(ran.stdout)["task_runs"]
    assert (run["outcome"], run["output"]) == ("not_achieved", "found 0 connections")


def test_an_agent_class_that_cannot_be_imported_is_one_line_and_exit_2(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("raise ImportError('no such SDK')\n")
    ran = assay("run", SHOP, "--agent", f"{broken}:Agent", cwd=tmp_path)
    assert ran.returncode == 2
    assert ran.stderr == f"error: --agent: cannot import {broken}: ImportError: no such SDK\n"
