"""Helpers for the trust tests: task files, results built from check outcomes, the CLI from a temp dir."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from assay.score.result import TaskRunResult
from assay.score.summary import Summary
from assay.score.task import score_task
from assay.taskrun.rollout import RunError
from assay.verify.check_run import CheckRun

ASSAY = Path(sys.executable).parent / "assay"


def write_task(world: Path, task_id: str, text: str) -> Path:
    path = world / "tasks" / f"{task_id}.toml"
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def assay_here(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`assay ARGS` run from `cwd` with no ASSAY_HOME, so that `.assay/` lands in `cwd`."""
    env = {key: value for key, value in os.environ.items() if key != "ASSAY_HOME"}
    env["COLUMNS"] = "200"  # one table row per task, whatever terminal runs the tests
    return subprocess.run(
        [str(ASSAY), *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def check_run(name: str, type_: str = "goal", passed: bool = True, details: str = "") -> CheckRun:
    return CheckRun(
        name=name,
        type=type_,
        kind="sql",
        weight=1.0,
        axis=None,
        passed=passed,
        score=1.0 if passed else 0.0,
        details=details or None,
        evidence={"actual": int(passed)},
    )


def result(
    checks: list[CheckRun], *, error: RunError | None = None, state: str = "s0", turns: int = 1
) -> TaskRunResult:
    """A finished task run with these check runs, scored as grading would score them."""
    scored = score_task(checks, scored=error is None)
    return TaskRunResult(
        id="tr_x",
        task_id="t",
        title="t",
        split="train",
        repeat=0,
        agent="noop",
        status="completed" if error is None else "failed",
        outcome=scored.outcome,
        reward=scored.reward,
        score=scored.score,
        verdict=scored.verdict,
        passed=scored.passed,
        fraction=scored.fraction,
        axes=scored.axes,
        checks=checks,
        summary=Summary(
            false_completion=False,
            duplicate_effects=0,
            faults=0,
            recovered=False,
            unnecessary_interruptions=0,
            rejected_attempts=0,
            turns=turns,
            termination="finished",
        ),
        output="",
        error=error,
        final_state_hash=state,
        started_at="2026-01-01T00:00:00.000Z",
        duration_s=0.0,
    )
