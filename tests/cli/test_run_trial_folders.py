"""What a user of the format's own runner expects from `assay run`: a multi-step task that does not
end the run, the failing verifier's last line in the table, and trial folders on request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sandboxkit import make_task

from assay.world.container import sandbox_available

pytestmark = pytest.mark.skipif(sandbox_available() is not None, reason="no bubblewrap here")

FAILING_TEST = """\
echo 'collected 2 items'
printf '\\033[31mFAILED tests/test_state.py::test_greeting - AssertionError: hello\\033[0m\\n'
echo
echo '{"results": {"summary": {"failed": 1}}}' > /logs/verifier/ctrf.json
echo 0 > /logs/verifier/reward.txt
"""
SOLVE = "mkdir -p /app && echo hi > /app/greeting.txt && echo 'wrote the greeting'\n"
ARTIFACTS = 'artifacts = ["/app/greeting.txt", {source = "/app", destination = "whole-app"}]\n'


def multi_step_task(parent: Path) -> Path:
    """Two steps with a solution each, as the format writes them, and no top-level test."""
    root = parent / "two-steps"
    steps = '[[steps]]\nname = "create"\n\n[[steps]]\nname = "append"\n'
    (root / "environment").mkdir(parents=True)
    (root / "task.toml").write_text('version = "1.0"\n\n' + steps)
    (root / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\nWORKDIR /app\n")
    made = (("create", "echo one > /app/f", "one"), ("append", "echo two >> /app/f", "one two"))
    for name, line, wanted in made:
        step = root / "steps" / name
        for folder in ("solution", "tests"):
            (step / folder).mkdir(parents=True)
        (step / "instruction.md").write_text(f"Step {name}.")
        (step / "solution" / "solve.sh").write_text(f"#!/bin/bash\n{line}\n")
        test = f'[ "$(echo $(cat /app/f))" = "{wanted}" ] && echo 1 || echo 0'
        (step / "tests" / "test.sh").write_text(
            f"#!/bin/bash\n({test}) > /logs/verifier/reward.txt\n"
        )
    return root


@pytest.mark.parametrize(("agent", "outcome"), [("oracle", "verified"), ("noop", "not_achieved")])
def test_a_multi_step_task_runs_beside_a_plain_one(assay, tmp_path: Path, agent, outcome):
    tasks = tmp_path / "tasks"
    multi_step_task(tasks)
    make_task(tasks, "plain", test_sh="echo 1 > /logs/verifier/reward.txt\n", solve_sh=":\n")
    done = assay("run", tasks, "--agent", agent, "--json", "--workers", "1")
    assert done.code == 0, done.err
    runs = {run["task_id"]: run for run in json.loads(done.out)["task_runs"]}
    assert runs["two-steps"]["outcome"] == outcome
    assert runs["two-steps"]["summary"]["turns"] == (4 if agent == "oracle" else 2)
    assert runs["plain"]["outcome"] == "verified"


def test_a_multi_step_trial_folder_keeps_each_steps_verifier(assay, tmp_path: Path):
    multi_step_task(tmp_path / "tasks")
    keep = tmp_path / "k"
    done = assay("run", tmp_path / "tasks", "--agent", "oracle", "--keep-artifacts", keep)
    assert done.code == 0, done.err
    (folder,) = (keep / "two-steps").iterdir()
    for name in ("create", "append"):
        assert (folder / "steps" / name / "verifier" / "reward.txt").read_text().strip() == "1"
    assert json.loads((folder / "verifier" / "reward.json").read_text()) == {"reward": 1.0}


def test_the_table_shows_the_failing_verifiers_last_line(assay, tmp_path: Path):
    make_task(tmp_path / "tasks", "greet", test_sh=FAILING_TEST, solve_sh=SOLVE)
    done = assay("run", tmp_path / "tasks", "--agent", "oracle")
    assert done.code == 0, done.err
    # the last line that is not blank, without its colour codes
    assert "verifier: FAILED tests/test_state.py::test_greeting - AssertionError: hello" in done.out
    assert "\x1b[31m" not in done.out


def test_a_passing_verifier_shows_no_line(assay, tmp_path: Path):
    make_task(tmp_path / "tasks", "fine", test_sh="echo ok\necho 1 > /logs/verifier/reward.txt\n")
    done = assay("run", tmp_path / "tasks", "--agent", "noop")
    assert done.code == 0, done.err
    assert "verifier:" not in done.out


def test_keep_artifacts_leaves_a_trial_folder_per_task_run(assay, tmp_path: Path):
    toml = ARTIFACTS + "[agent]\ntimeout_sec = 30\n[verifier]\ntimeout_sec = 30\n"
    make_task(tmp_path / "tasks", "greet", test_sh=FAILING_TEST, solve_sh=SOLVE, toml=toml)
    kept = tmp_path / "kept"
    done = assay(
        "run", tmp_path / "tasks", "--agent", "oracle", "--repeats", "2", "--keep-artifacts", kept
    )
    assert done.code == 0, done.err
    folders = sorted((kept / "greet").iterdir())
    assert len(folders) == 2 and all(folder.name.startswith("tr_") for folder in folders)
    folder = folders[0]
    assert (folder / "agent" / "oracle.txt").read_text() == "wrote the greeting\n"
    verifier = folder / "verifier"
    assert sorted(path.name for path in verifier.iterdir()) == [
        "ctrf.json",
        "reward.txt",
        "test-stdout.txt",
    ]
    assert "FAILED tests/test_state.py" in (verifier / "test-stdout.txt").read_text()
    artifacts = folder / "artifacts"
    assert (artifacts / "app" / "greeting.txt").read_text() == "hi\n"
    assert (artifacts / "whole-app" / "greeting.txt").read_text() == "hi\n"
    assert (artifacts / "model.patch").is_file()  # /logs/artifacts as the agent left it
    manifest = json.loads((artifacts / "manifest.json").read_text())
    assert [entry["status"] for entry in manifest] == ["collected", "collected"]
    result = json.loads((folder / "result.json").read_text())
    assert result["task_run_id"] == folder.name and result["task_id"] == "greet"
    assert (result["outcome"], result["reward"], result["verifier_status"]) == (
        "not_achieved",
        0,
        "SCORED",
    )
    assert result["rewards"] == {"reward": 0.0}
    assert {json.loads((f / "result.json").read_text())["repeat"] for f in folders} == {0, 1}


def test_a_task_run_refused_before_its_sandbox_still_leaves_its_result(assay, tmp_path: Path):
    make_task(tmp_path / "tasks", "gpu", test_sh=SOLVE, toml="[environment]\ngpus = 1\n")
    done = assay("run", tmp_path / "tasks", "--agent", "noop", "--keep-artifacts", tmp_path / "k")
    assert done.code == 0, done.err
    (folder,) = (tmp_path / "k" / "gpu").iterdir()
    result = json.loads((folder / "result.json").read_text())
    assert result["outcome"] == "not_scored"
    assert result["reason"] == "unsupported_environment:gpus"
    assert sorted(path.name for path in folder.iterdir()) == [
        "agent",
        "artifacts",
        "result.json",
        "verifier",
    ]
