"""Whole task runs whose verifiers use uv as published tasks do: `uv venv` and `uv pip install`,
`uv init` and `uv add`, `uvx --with` pinned packages, the uv installer's steps under `set -e`. Each
fails for an agent that does nothing, so the oracle's reward 1 is the tools working."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandboxkit import make_task
from sandboxrun import run_one, script

SOLVE = "mkdir -p /app && echo 'Hello, world!' > /app/hello.txt\n"
TEST_OUTPUTS = """
from pathlib import Path

def test_hello():
    assert Path("/app/hello.txt").read_text() == "Hello, world!\\n"
"""
REWARD = (
    "if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; "
    "else echo 0 > /logs/verifier/reward.txt; fi\n"
)
TOML = "[agent]\ntimeout_sec = 60\n[verifier]\ntimeout_sec = 300\n"
VERIFIERS = {
    # 36 of 39 Terminal-Bench test scripts, as the format's converter leaves them
    "uv-venv": (
        "cd /tests\nuv venv .tbench-testing\nsource .tbench-testing/bin/activate\n"
        "uv pip install pytest==8.4.1\nuv run pytest /tests/test_outputs.py -rA\n"
    ),
    "uv-project": (
        "mkdir -p /tmp/grader && cd /tmp/grader\nuv init\nuv add pytest==8.4.1\n"
        "uv run pytest /tests/test_outputs.py -rA\n"
    ),
    "uvx-pinned": (
        "uvx -p 3.13 --with pytest==8.4.1 --with pluggy==1.5.0 --with pytest-json-ctrf==0.3.5 "
        "pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py /tests/test_pins.py -rA\n"
    ),
}
PINS = """
import importlib.metadata, pytest

def test_the_pinned_versions_run():
    assert pytest.__version__ == "8.4.1"
    assert importlib.metadata.version("pluggy") == "1.5.0"
"""


@pytest.mark.parametrize("style", VERIFIERS)
def test_a_verifier_that_installs_pytest_with_uv_grades_the_task(
    tmp_path: Path, style: str
) -> None:
    task = make_task(
        tmp_path,
        style,
        test_sh=VERIFIERS[style] + REWARD,
        solve_sh=SOLVE,
        toml=TOML,
        tests_files={"test_outputs.py": TEST_OUTPUTS, "test_pins.py": PINS},
    )
    solved = run_one(task)
    assert solved.outcome == "verified", script(solved).get("test_stdout_tail")
    assert run_one(task, agent="noop").outcome == "not_achieved"


INSTALLER = """set -e
apt-get update
apt-get install -y curl
curl -LsSf https://astral.sh/uv/0.9.7/install.sh | sh
source $HOME/.local/bin/env
uvx -p 3.13 -w pytest==8.4.1 pytest /tests/test_outputs.py -rA && echo 1 > /logs/verifier/reward.txt
"""


def test_the_uv_installers_steps_under_set_e_leave_uv_usable(tmp_path: Path) -> None:
    """As published verifiers do: the installer cannot be fetched here (nothing is written, so its
    `sh` exits 0), its env file is there to source, and uv is on the PATH."""
    task = make_task(
        tmp_path,
        "installer",
        test_sh=INSTALLER,
        solve_sh=SOLVE,
        toml=TOML,
        tests_files={"test_outputs.py": TEST_OUTPUTS},
    )
    solved = run_one(task)
    assert solved.outcome == "verified", script(solved).get("test_stdout_tail")


def test_a_verifier_user_of_the_dockerfile_finds_the_installers_env_in_its_home(
    tmp_path: Path,
) -> None:
    test_sh = (
        "set -e\nsource $HOME/.local/bin/env\n"
        '[ "$(command -v uv)" = "$HOME/.local/bin/uv" ] && [ "$HOME" = /home/grader ]\n'
        "uv --version && echo 1 > /logs/verifier/reward.txt\n"
    )
    task = make_task(
        tmp_path,
        "user-home",
        test_sh=test_sh,
        solve_sh=SOLVE,
        toml=TOML + 'user = "grader"\n',
        dockerfile="FROM debian:bookworm-slim\nRUN useradd -m grader\nWORKDIR /app\n",
    )
    solved = run_one(task)
    assert solved.outcome == "verified", script(solved).get("test_stdout_tail")
