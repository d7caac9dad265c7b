"""Benchmark runs: plan, execute, aggregate.

Names load on first use: `assay run` in one process never needs the process pool or Ray.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# Functions named like their modules are bound now: importing the module would otherwise put the
# module under that name.
from assay.runs.aggregate import Figures, aggregate
from assay.runs.grade import grade
from assay.runs.plan import PlannedRun, plan, select_tasks

_EXPORTS = {
    "Benchmark": "assay.runs.benchmark",
    "open_benchmark": "assay.runs.benchmark",
    "RayExecutor": "assay.runs.cluster",
    "Executor": "assay.runs.execute",
    "SerialExecutor": "assay.runs.execute",
    "ProcessExecutor": "assay.runs.pool",
    "executor_for": "assay.runs.pool",
    "BenchmarkOutcome": "assay.runs.run",
    "BenchmarkRunResult": "assay.runs.run",
    "prepare": "assay.runs.run",
    "run_benchmark": "assay.runs.run",
    "run_task": "assay.runs.taskrun",
}

__all__ = [
    "Benchmark",
    "BenchmarkOutcome",
    "BenchmarkRunResult",
    "Executor",
    "Figures",
    "PlannedRun",
    "ProcessExecutor",
    "RayExecutor",
    "SerialExecutor",
    "aggregate",
    "executor_for",
    "grade",
    "open_benchmark",
    "plan",
    "prepare",
    "run_benchmark",
    "run_task",
    "select_tasks",
]

if TYPE_CHECKING:
    from assay.runs.benchmark import Benchmark, open_benchmark
    from assay.runs.cluster import RayExecutor
    from assay.runs.execute import Executor, SerialExecutor
    from assay.runs.pool import ProcessExecutor, executor_for
    from assay.runs.run import BenchmarkOutcome, BenchmarkRunResult, prepare, run_benchmark
    from assay.runs.taskrun import run_task


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'assay.runs' has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value
