"""The example container-format tasks are complete, well-formed, and keep the feature each one shows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

TASKS = Path(__file__).resolve().parents[2] / "examples" / "tasks"

Config = dict[str, Any]

# What each task is there to show; an edit that drops it leaves docs/container-tasks.md
# describing nothing.
FEATURES: dict[str, Callable[[Config, Path], bool]] = {
    "hello-world": lambda config, root: (
        "uvx -p 3.13 -w pytest==8.4.1" in (root / "tests" / "test.sh").read_text()
    ),
    "workdir-override": lambda config, root: config["environment"]["workdir"] == "/srv/project",
    "agent-user": lambda config, root: config["agent"]["user"] == "builder",
    "separate-verifier": lambda config, root: (
        config["verifier"]["environment_mode"] == "separate"
        and config["environment"]["network_mode"] == "no-network"
        and config["artifacts"] == ["/tmp/report.json"]
        and (root / "tests" / "Dockerfile").is_file()
    ),
    "multi-metric": lambda config, root: (root / "tests" / "grade.py").is_file(),
    "build-steps": lambda config, root: all(
        keyword in (root / "environment" / "Dockerfile").read_text()
        for keyword in ("ARG ", "ENV ", "WORKDIR ", "COPY ", "RUN ", "EXPOSE ")
    ),
    "hooks-and-artifacts": lambda config, root: (
        (root / "pre_artifacts.sh").is_file()
        and [hook["command"] for hook in config["verifier"]["collect"]]
        == ["exit 3", "ls /app > /logs/artifacts/listing.txt"]
    ),
    "model-judge": lambda config, root: (
        config["verifier"]["env"]["OPENAI_API_KEY"] == "${OPENAI_API_KEY}"
    ),
}


def config_of(name: str) -> Config:
    return tomllib.loads((TASKS / name / "task.toml").read_text())


def scripts_of(root: Path) -> list[Path]:
    return sorted(root.rglob("*.sh"))


def test_the_dataset_holds_exactly_the_documented_tasks() -> None:
    assert sorted(path.name for path in TASKS.iterdir()) == sorted(FEATURES)


@pytest.mark.parametrize("name", sorted(FEATURES))
def test_a_task_has_every_part_the_format_needs(name: str) -> None:
    root = TASKS / name
    config = config_of(name)

    assert (root / "instruction.md").read_text().strip()
    assert config["task"]["name"] == f"assay-examples/{name}"
    assert {"difficulty", "category"} <= set(config["metadata"])
    assert config["agent"]["timeout_sec"] > 0
    assert config["verifier"]["timeout_sec"] > 0
    assert (root / "tests" / "test.sh").is_file()
    assert (root / "solution" / "solve.sh").is_file()
    assert FEATURES[name](config, root)


@pytest.mark.parametrize("name", sorted(FEATURES))
def test_every_script_is_executable_bash_that_parses(name: str) -> None:
    for script in scripts_of(TASKS / name):
        assert script.read_text().startswith("#!/bin/bash\n"), script
        assert os.access(script, os.X_OK), f"{script} is not executable"
        syntax = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert syntax.returncode == 0, syntax.stderr


@pytest.mark.parametrize("name", sorted(FEATURES))
def test_no_verifier_installs_anything_or_fetches_at_grading_time(name: str) -> None:
    test_sh = (TASKS / name / "tests" / "test.sh").read_text()

    for offline_breaker in ("apt-get", "curl ", "wget ", "pip install", "astral.sh"):
        assert offline_breaker not in test_sh


def grade(program: Path, tmp_path: Path) -> dict[str, int]:
    """Run the multi-metric task's grader on the host against `program`; the reward.json it wrote."""
    reward = tmp_path / "reward.json"
    grader = TASKS / "multi-metric" / "tests" / "grade.py"
    subprocess.run([sys.executable, str(grader), str(program), str(reward)], check=True)
    return json.loads(reward.read_text())


def test_the_multi_metric_grader_gives_two_zeroes_when_nothing_was_written(tmp_path: Path) -> None:
    assert grade(tmp_path / "absent.py", tmp_path) == {"correctness": 0, "speed": 0}


def test_the_multi_metric_grader_passes_a_correct_program_on_correctness(tmp_path: Path) -> None:
    program = tmp_path / "dedupe.py"
    program.write_text(
        "import sys\n"
        "lines = open(sys.argv[1], encoding='utf-8').read().splitlines()\n"
        "open(sys.argv[2], 'w', encoding='utf-8').writelines(l + '\\n' for l in dict.fromkeys(lines))\n"
    )

    rewards = grade(program, tmp_path)

    assert set(rewards) == {"correctness", "speed"}
    assert rewards["correctness"] == 1


def test_the_multi_metric_grader_fails_a_program_that_keeps_newlines_apart(tmp_path: Path) -> None:
    program = tmp_path / "dedupe.py"
    program.write_text(
        "import sys\n"
        "lines = open(sys.argv[1], encoding='utf-8').readlines()\n"
        "open(sys.argv[2], 'w', encoding='utf-8').writelines(dict.fromkeys(lines))\n"
    )

    assert grade(program, tmp_path)["correctness"] == 0
