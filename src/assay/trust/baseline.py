"""Recorded baselines: the check runs of every scripted solution, frozen in `WORLD/baselines/`.

Deriving expectations follows the data; only a frozen record catches a change in grading logic.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from assay.errors import SpecError
from assay.formats.files import shown
from assay.formats.task import TaskSpec
from assay.runs.benchmark import Benchmark, open_benchmark
from assay.runs.plan import select_tasks
from assay.trust.diff import differences
from assay.trust.record import run_record
from assay.trust.validate import attempt

BASELINES_DIR = "baselines"
FORMAT = "assay-baseline-1"
ALL_SPLITS = ("train", "dev", "holdout")


class BaselineChange(BaseModel, defer_build=True):
    task_id: str
    run: str | None
    change: str


class BaselineReport(BaseModel, defer_build=True):
    world: str
    version: str
    tasks: list[str]
    changes: list[BaselineChange]

    @property
    def unchanged(self) -> bool:
        return not self.changes


def scripted_agents(task: TaskSpec) -> list[str]:
    """The agents a baseline records: no-op, the reference (if any) and every wrong solution."""
    agents = ["noop"]
    if task.solution is not None:
        agents.append("reference")
    return agents + [f"wrong:{wrong.name}" for wrong in task.wrong]


def task_baseline(benchmark: Benchmark, task: TaskSpec) -> dict[str, Any]:
    """One task's baseline: a stable record of each scripted agent's task run."""
    runs = {agent: run_record(attempt(benchmark, task, agent)) for agent in scripted_agents(task)}
    return {"format": FORMAT, "task": task.id, "runs": runs}


def baseline_text(baseline: dict[str, Any]) -> str:
    """Sorted keys and one value per line, so that a change diffs cleanly in git."""
    return json.dumps(baseline, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def record_baselines(path: str | Path, task_ids: Sequence[str] = ()) -> list[Path]:
    """Write one baseline file per task (all tasks, or the named ones); returns the files written.

    Recording every task also removes the files of tasks that no longer exist.
    """
    benchmark = open_benchmark(path)
    directory = benchmark.world.root / BASELINES_DIR
    directory.mkdir(exist_ok=True)
    written = []
    for task in select_tasks(benchmark.world, task_ids, ALL_SPLITS):
        file = directory / f"{task.id}.json"
        file.write_text(baseline_text(task_baseline(benchmark, task)), encoding="utf-8")
        written.append(file)
    if not task_ids:
        for stale in _files(directory):
            if stale.stem not in benchmark.tasks:
                stale.unlink()
    return written


def check_baselines(path: str | Path, task_ids: Sequence[str] = ()) -> BaselineReport:
    """Run every scripted solution again and report what changed from the recorded baselines."""
    benchmark = open_benchmark(path)
    world = benchmark.world
    directory = world.root / BASELINES_DIR
    tasks = select_tasks(world, task_ids, ALL_SPLITS)
    changes: list[BaselineChange] = []
    for task in tasks:
        file = directory / f"{task.id}.json"
        if not file.is_file():
            changes.append(BaselineChange(task_id=task.id, run=None, change="no baseline recorded"))
            continue
        recorded = read_baseline(file)
        changes += compare_baseline(task.id, recorded, task_baseline(benchmark, task))
    if not task_ids:
        changes += [
            BaselineChange(task_id=file.stem, run=None, change="baseline of a task that is gone")
            for file in _files(directory)
            if file.stem not in world.tasks
        ]
    return BaselineReport(
        world=world.name, version=world.version, tasks=[t.id for t in tasks], changes=changes
    )


def compare_baseline(
    task_id: str, recorded: dict[str, Any], current: dict[str, Any]
) -> list[BaselineChange]:
    """Each difference between a recorded baseline and a fresh one, run by run, check by check."""
    before, after = recorded.get("runs", {}), current.get("runs", {})
    changes = [
        BaselineChange(task_id=task_id, run=run, change="recorded, but the task no longer has it")
        for run in before
        if run not in after
    ]
    for run, record in after.items():
        if run not in before:
            changes.append(BaselineChange(task_id=task_id, run=run, change="not in the baseline"))
            continue
        changes += [
            BaselineChange(task_id=task_id, run=run, change=change)
            for change in differences(before[run], record)
        ]
    return changes


def read_baseline(file: Path) -> dict[str, Any]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SpecError(shown(file), None, f"not a baseline: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SpecError(shown(file), "format", f"not a {FORMAT} file")
    if not isinstance(data.get("runs"), dict):
        raise SpecError(shown(file), "runs", "required")
    return data


def _files(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.json")) if directory.is_dir() else []
