"""Run one container-format task in this process, as `assay run` would, for the tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.runs import open_benchmark
from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.score.result import TaskRunResult
from assay.taskrun.agents.resolve import agent_factory
from assay.taskrun.agents.scripted import ActionsAgent


def run_one(
    task_dir: Path, agent: str = "reference", actions: list[dict[str, Any]] | None = None
) -> TaskRunResult:
    """One task run of the only task under `task_dir`, by a named agent or by these actions."""
    benchmark = open_benchmark(task_dir)
    (task,) = benchmark.tasks.values()
    made = ActionsAgent(actions) if actions is not None else agent_factory(agent)(task)
    name = "actions" if actions is not None else agent
    return run_task(benchmark, task, made, run_id=new_id("tr"), agent_name=name)


def exec_action(command: str, timeout_s: float = 30) -> dict[str, Any]:
    return {"call": {"tool": "exec", "args": {"command": command, "timeout_s": timeout_s}}}


def script(result: TaskRunResult) -> dict[str, Any]:
    """The evidence of the task run's script check."""
    (check,) = [check for check in result.checks if check.kind == "script"]
    assert check.evidence is not None
    return check.evidence
