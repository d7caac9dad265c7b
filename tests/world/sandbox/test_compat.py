"""The uvx and uv stand-ins on a sandbox's PATH: pytest from assay's environment, nothing else."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from assay.world.sandbox import Sandbox

TEST_FILE = """
def test_the_agent_wrote_hello():
    assert open("/app/hello.txt").read() == "Hello, world!\\n"
"""


def write_tests(tmp_path: Path) -> Path:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_x.py").write_text(TEST_FILE)
    return tests


def test_uvx_pytest_runs_assays_pytest_and_writes_the_ctrf_report(
    start_sandbox: Callable[..., Sandbox], tmp_path: Path
) -> None:
    box = start_sandbox(workdir="/app", verifier=True)  # /logs/verifier is writable in it alone
    box.put(write_tests(tmp_path), "/tests")
    box.exec("echo 'Hello, world!' > /app/hello.txt", timeout_s=10)
    result = box.exec(
        "uvx -p 3.13 --with pytest==8.4.1 --with pytest-json-ctrf==0.3.5 "
        "pytest --ctrf /logs/verifier/ctrf.json /tests/test_x.py -rA",
        timeout_s=120,
    )
    assert result.exit_code == 0, result
    assert b"[assay-compat] uvx -p 3.13" in result.stderr
    assert b"PASSED" in result.stdout
    report = json.loads((box.home / "verifier" / "ctrf.json").read_text())
    assert report["results"]["summary"]["passed"] == 1
    no_cache = box.exec("ls -A /tests /app", timeout_s=10).stdout.decode()
    assert ".pytest_cache" not in no_cache


def test_a_failing_test_fails_the_shim_too(box: Sandbox, tmp_path: Path) -> None:
    box.put(write_tests(tmp_path), "/tests")
    result = box.exec("uvx --with pytest pytest /tests -q", timeout_s=120)
    assert result.exit_code == 1


def test_uv_run_with_pytest_is_handled_the_same_way(box: Sandbox, tmp_path: Path) -> None:
    box.put(write_tests(tmp_path), "/tests")
    box.exec("echo 'Hello, world!' > /app/hello.txt", timeout_s=10)
    result = box.exec("uv run --with pytest==8.4.1 pytest /tests -q", timeout_s=120)
    assert result.exit_code == 0, result
    assert b"[assay-compat] uv run" in result.stderr


def test_other_tools_exit_127_saying_why(box: Sandbox) -> None:
    for command in ("uvx ruff check .", "uv pip install requests", "uvx --from x"):
        result = box.exec(command, timeout_s=30)
        assert result.exit_code == 127, command
        assert result.stderr.startswith(b"[assay-compat]"), command
