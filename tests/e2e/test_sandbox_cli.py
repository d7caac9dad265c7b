"""Container-format tasks as a user runs them: `assay run examples/tasks` in a subprocess."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from sandboxkit import make_task

from assay.world.container import sandbox_available

EXAMPLES = Path(__file__).parents[2] / "examples" / "tasks"
pytestmark = pytest.mark.skipif(sandbox_available() is not None, reason="no bubblewrap here")

# what the oracle and the noop agent get on each example: (outcome, status of the script check)
ORACLE = {
    "hello-world": ("verified", "SCORED"),
    "workdir-override": ("verified", "SCORED"),
    "agent-user": ("verified", "SCORED"),
    "separate-verifier": ("verified", "SCORED"),
    "multi-metric": ("not_scored", "SCORED"),  # two metrics, no primary
    "build-steps": ("verified", "SCORED"),
    "hooks-and-artifacts": ("verified", "SCORED"),
    "model-judge": ("not_scored", "INDETERMINATE"),  # no OPENAI_API_KEY here
}
NOOP = {
    task: ("not_achieved", status) if outcome == "verified" else (outcome, status)
    for task, (outcome, status) in ORACLE.items()
}


def outcomes(done: subprocess.CompletedProcess[str]) -> dict[str, tuple[str, str]]:
    assert done.returncode == 0, done.stderr
    runs = json.loads(done.stdout)["task_runs"]
    return {
        run["task_id"]: (
            run["outcome"],
            next(c for c in run["checks"] if c["assert"] == "script")["evidence"]["status"],
        )
        for run in runs
    }


@pytest.fixture
def no_judge_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.mark.usefixtures("no_judge_key")
@pytest.mark.parametrize(("agent", "expected"), [("oracle", ORACLE), ("noop", NOOP)])
def test_every_example_gets_the_status_the_table_prescribes(assay_cli, agent, expected):
    done = assay_cli("run", str(EXAMPLES), "--agent", agent, "--json", "--workers", "2")
    assert outcomes(done) == expected


@pytest.mark.usefixtures("no_judge_key")
def test_a_judge_task_without_its_key_says_which_key(assay_cli):
    done = assay_cli("run", str(EXAMPLES / "model-judge"), "--agent", "oracle", "--json")
    (run,) = json.loads(done.stdout)["task_runs"]
    assert run["error"]["message"] == "missing_env:OPENAI_API_KEY"
    assert run["summary"]["turns"] == 0  # refused before the agent started


def test_one_task_directory_runs_with_repeats_and_shows_in_the_store(assay_cli):
    task = str(EXAMPLES / "workdir-override")
    done = assay_cli("run", task, "--agent", "oracle", "--repeats", "3", "--json")
    data = json.loads(done.stdout)
    assert data["benchmark_run"]["outcomes"]["verified"] == 3
    assert data["benchmark_run"]["pass_at_k"]["2"] == 1.0
    shown = assay_cli("show", data["benchmark_run"]["id"])
    assert shown.returncode == 0 and "workdir-override" in shown.stdout


def test_the_pass_threshold_can_be_lowered_from_the_command_line(assay_cli, tmp_path):
    make_task(tmp_path / "set", "half", test_sh="echo 0.5 > /logs/verifier/reward.txt\n")
    strict = json.loads(assay_cli("run", str(tmp_path / "set"), "--agent", "noop", "--json").stdout)
    lenient = assay_cli(
        "run", str(tmp_path / "set"), "--agent", "noop", "--json", "--pass-threshold", "0.5"
    )
    assert strict["task_runs"][0]["outcome"] == "not_achieved"
    assert json.loads(lenient.stdout)["task_runs"][0]["outcome"] == "verified"


def test_validate_proves_a_dataset_fair(assay_cli, tmp_path):
    make_task(
        tmp_path / "set",
        "fair",
        test_sh="test -f /app/x && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n",
        solve_sh="mkdir -p /app && touch /app/x\n",
    )
    done = assay_cli("validate", str(tmp_path / "set"), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    (task,) = json.loads(done.stdout)["tasks"]
    assert task["passed"] is True
    assert {name: proof["status"] for name, proof in task["proofs"].items()}["replay"] == "passed"


def _sandboxed(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.parametrize("workers", ["1", "2"])
def test_killing_assay_mid_task_leaves_no_sandbox_process(tmp_path, assay_home, workers):
    marker = f"3141592{workers}"
    make_task(
        tmp_path / "set",
        "sleeper",
        test_sh="echo 1 > /logs/verifier/reward.txt\n",
        solve_sh=f"sleep {marker} &\nsleep {marker}\n",
        toml="[agent]\ntimeout_sec = 600\n",
    )
    from apikit import ASSAY

    env = {**os.environ, "ASSAY_HOME": str(assay_home)}
    process = subprocess.Popen(
        [
            ASSAY,
            "run",
            str(tmp_path / "set"),
            "--agent",
            "oracle",
            "--workers",
            workers,
            "--repeats",
            workers,
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    deadline = time.monotonic() + 60
    wanted = 2 * int(workers)  # two sleeps in each sandbox
    while len(_sandboxed(f"sleep {marker}")) < wanted and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(_sandboxed(f"sleep {marker}")) >= wanted
    process.send_signal(signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 10
    while _sandboxed(f"sleep {marker}") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _sandboxed(f"sleep {marker}") == []


def test_a_python_class_agent_in_its_own_process_acts_through_exec(assay_cli):
    agent = f"{Path(__file__).parent / 'shell_agent.py'}:ShellAgent"
    task = str(EXAMPLES / "workdir-override")
    done = assay_cli("run", task, "--agent", agent, "--json")
    assert done.returncode == 0, done.stderr
    (run,) = json.loads(done.stdout)["task_runs"]
    assert (run["outcome"], run["output"]) == ("verified", "wrote notes.txt in /srv/project")
