"""A task whose compose file only restates the main service runs, with its environment and workdir."""

from __future__ import annotations

from pathlib import Path

from sandboxkit import make_task
from sandboxrun import run_one, script

COMPOSE = """services:
  main:
    build:
      context: ${CONTEXT_DIR}
    command: ["sh", "-c", "sleep infinity"]
    environment:
      - TEST_DIR=${TEST_DIR}
      - GREETING=hello
    working_dir: /work
"""
TEST_SH = """
[ "$(pwd)" = /work ] && [ "$GREETING" = hello ] && grep -qx hello /work/out.txt \\
    && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt
"""


def test_a_main_only_compose_task_runs_like_its_dockerfile(tmp_path: Path) -> None:
    task = make_task(
        tmp_path,
        "composed",
        test_sh=TEST_SH,
        solve_sh='echo "$GREETING" > out.txt\n',
        dockerfile="FROM debian:bookworm-slim\nRUN mkdir -p /work\n",
        environment_files={"docker-compose.yaml": COMPOSE},
    )
    assert run_one(task).outcome == "verified", script(run_one(task, agent="noop"))
    assert run_one(task, agent="noop").outcome == "not_achieved"


def test_a_compose_file_with_a_second_service_is_not_scored(tmp_path: Path) -> None:
    compose = "services:\n  main:\n    build: .\n  db:\n    image: postgres\n"
    task = make_task(
        tmp_path,
        "sidecar",
        test_sh="echo 1 > /logs/verifier/reward.txt\n",
        solve_sh=":\n",
        dockerfile="FROM debian:bookworm-slim\n",
        environment_files={"docker-compose.yaml": compose},
    )
    result = run_one(task)
    assert result.outcome == "not_scored" and result.summary.turns == 0
    assert result.error is not None
    assert result.error.message.startswith("unsupported_environment:compose(services db, main")
