"""`assay export RUN --format harbor DIR` writes Harbor's job folder, read back by the harbor
package's own models (TrialConfig, TrialResult, the ATIF Trajectory). harbor needs Python ≥ 3.12,
so it lives in a test-only venv of its own, built once under build/ (by uv) and kept."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from worldkit import SHOP

ROOT = Path(__file__).resolve().parents[2]
ASSAY = str(Path(sys.executable).parent / "assay")
HARBOR = "harbor>=0.26"
# pyenv's own interpreters first: its shims answer for versions that are not selected.
PYTHON312 = next(
    (str(p) for p in sorted(Path.home().glob(".pyenv/versions/3.1[2-9]*/bin/python3"))),
    shutil.which("python3.12"),
)


@pytest.fixture(scope="module")
def harbor_python() -> str:
    if PYTHON312 is None:
        pytest.skip("harbor needs Python >= 3.12, and none is installed")
    place = ROOT / "build" / "test-venv-harbor"
    python = place / "bin" / "python"
    if not (place / "ready").exists():  # uv (from the sandbox extra): pip took minutes here
        uv = str(Path(sys.executable).parent / "uv")
        made = [uv, "venv", "--quiet", "--clear", "--python", PYTHON312, place]
        subprocess.run(made, check=True)
        install = [uv, "pip", "install", "--quiet", "--python", python, HARBOR]
        subprocess.run(install, check=True, timeout=600)
        (place / "ready").touch()
    return str(python)


def assay(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ASSAY_HOME": str(tmp_path / "home"), "OPENAI_API_KEY": "none"}
    return subprocess.run(
        [ASSAY, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )


def exported(tmp_path: Path, harbor_python: str, *run_args: str) -> dict[str, dict]:
    ran = assay(tmp_path, "run", str(SHOP), *run_args, "--json")
    run_id = json.loads(ran.stdout)["benchmark_run"]["id"]
    done = assay(tmp_path, "export", run_id, "--format", "harbor", "jobs")
    assert done.returncode == 0, done.stderr
    job = tmp_path / "jobs" / run_id
    read = subprocess.run(
        [harbor_python, ROOT / "tests" / "conformance" / "harbor_validate.py", job],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert read.returncode == 0, read.stderr[-3000:]
    return {row["task"]: row for row in map(json.loads, read.stdout.splitlines())}


def test_every_trial_of_a_run_loads_in_harbors_models(tmp_path, harbor_python):
    trials = exported(tmp_path, harbor_python, "--agent", "reference")
    refund = trials["refund-double-charge"]
    assert refund["rewards"] == {"reward": 1, "score": 1.0} and refund["reward_valid"]
    assert refund["reward_txt"] == "1"
    assert refund["tool_calls"] == 2  # find_order, refund_payment; finish is a message
    assert refund["steps"] == 4  # the customer's request, two calls, the final answer
    assert all(t["exception"] is None for t in trials.values())
    trial = tmp_path / "jobs"
    (stdout,) = trial.glob("*/refund-double-charge__0/verifier/test-stdout.txt")
    assert "PASS [goal] Exactly one card refund for A-1042" in stdout.read_text()


def test_a_run_not_scored_has_no_reward_and_says_why(tmp_path, harbor_python):
    trials = exported(
        tmp_path,
        harbor_python,
        "--agent",
        "model:nobody",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model-retries",
        "0",
        "--task",
        "refund-double-charge",
    )
    (trial,) = trials.values()
    assert trial["rewards"] is None and trial["reward_txt"] is None
    assert not trial["reward_valid"]
    assert trial["exception"] == "NotScored:agent"


def test_the_harbor_format_needs_a_folder_and_only_it_takes_one(tmp_path):
    ran = assay(tmp_path, "run", str(SHOP), "--agent", "noop", "--task", "update-address", "--json")
    run_id = json.loads(ran.stdout)["benchmark_run"]["id"]
    without = assay(tmp_path, "export", run_id, "--format", "harbor")
    assert without.returncode == 2 and "DIR:" in without.stderr
    stray = assay(tmp_path, "export", run_id, "jobs")
    assert stray.returncode == 2 and "only with --format harbor" in stray.stderr
