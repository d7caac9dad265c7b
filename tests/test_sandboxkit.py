"""The kit that writes container-format tasks for tests writes what it says it does."""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path

import pytest
from sandboxkit import DEFAULT_TOML, make_task, reward_task


def is_executable(path: Path) -> bool:
    return os.access(path, os.X_OK) and path.stat().st_mode & 0o111 == 0o111


def run_test_script(task: Path, verifier_dir: Path) -> int:
    """Run the task's test.sh with /logs/verifier pointed at a host directory; its exit code."""
    script = (task / "tests" / "test.sh").read_text().replace("/logs/verifier", str(verifier_dir))
    return subprocess.run(["bash", "-c", script], check=False).returncode


def test_a_minimal_task_has_the_required_files_and_loads_as_toml(tmp_path: Path) -> None:
    task = make_task(tmp_path, "minimal", test_sh="echo 1 > /logs/verifier/reward.txt\n")

    assert task == tmp_path / "minimal"
    assert (task / "instruction.md").read_text() == "Do the thing."
    assert (task / "task.toml").read_text() == DEFAULT_TOML
    assert tomllib.loads(DEFAULT_TOML)["verifier"]["timeout_sec"] == 30
    test_sh = task / "tests" / "test.sh"
    assert test_sh.read_text() == "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n"
    assert is_executable(test_sh)
    assert not (task / "solution").exists()
    assert not (task / "environment").exists()
    assert not (task / "pre_artifacts.sh").exists()


def test_every_part_lands_where_the_format_puts_it(tmp_path: Path) -> None:
    task = make_task(
        tmp_path,
        "full",
        test_sh="#!/bin/sh\nexit 0\n",
        solve_sh="echo hi > /app/x\n",
        toml='[task]\nname = "t/full"\n',
        instruction="Write x.",
        dockerfile="FROM debian:bookworm-slim\nWORKDIR /app\n",
        environment_files={"seed/a.csv": "a,1\n", "setup.sh": "true\n"},
        tests_files={"test_outputs.py": "def test_x():\n    pass\n"},
        pre_artifacts="cp /app/x /logs/artifacts/\n",
    )

    assert (task / "tests" / "test.sh").read_text() == "#!/bin/sh\nexit 0\n"
    assert (task / "solution" / "solve.sh").read_text() == "#!/bin/bash\necho hi > /app/x\n"
    assert is_executable(task / "solution" / "solve.sh")
    assert is_executable(task / "pre_artifacts.sh")
    assert (task / "environment" / "Dockerfile").read_text().endswith("WORKDIR /app\n")
    assert (task / "environment" / "seed" / "a.csv").read_text() == "a,1\n"
    assert is_executable(task / "environment" / "setup.sh")
    assert not is_executable(task / "tests" / "test_outputs.py")
    assert tomllib.loads((task / "task.toml").read_text())["task"]["name"] == "t/full"


@pytest.mark.parametrize("relative", ["../escape.txt", "/etc/passwd", ""])
def test_a_file_outside_its_directory_is_refused(tmp_path: Path, relative: str) -> None:
    with pytest.raises(ValueError, match="not a relative path"):
        make_task(tmp_path, "bad", test_sh="true\n", tests_files={relative: "x"})


@pytest.mark.parametrize(
    "text",
    ["1", "0.5\n", "", "  \n", "it's $HOME %s \\n", '{"reward": 1, "note": "a \\"b\\""}'],
)
def test_reward_files_hold_exactly_the_bytes_given(tmp_path: Path, text: str) -> None:
    task = reward_task(tmp_path, "rewards", reward_txt=text, reward_json=text)
    verifier = tmp_path / "verifier"

    assert run_test_script(task, verifier) == 0
    assert (verifier / "reward.txt").read_bytes() == text.encode()
    assert (verifier / "reward.json").read_bytes() == text.encode()


def test_a_reward_task_writes_only_the_files_asked_for_and_exits_as_told(tmp_path: Path) -> None:
    task = reward_task(
        tmp_path, "json-only", reward_json='{"reward": 0}', exit_code=3, sleep_s=0.01
    )
    verifier = tmp_path / "verifier"

    assert run_test_script(task, verifier) == 3
    assert sorted(path.name for path in verifier.iterdir()) == ["reward.json"]
    assert "sleep 0.01\n" in (task / "tests" / "test.sh").read_text()
    assert is_executable(task / "solution" / "solve.sh")


def test_a_reward_task_with_no_reward_writes_nothing(tmp_path: Path) -> None:
    task = reward_task(tmp_path, "silent")
    verifier = tmp_path / "verifier"

    assert run_test_script(task, verifier) == 0
    assert list(verifier.iterdir()) == []
