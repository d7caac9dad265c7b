"""Benchmark runs: plan, execute, aggregate."""

from assay.runs.aggregate import Figures, aggregate
from assay.runs.benchmark import Benchmark, open_benchmark
from assay.runs.cluster import RayExecutor
from assay.runs.execute import Executor, SerialExecutor
from assay.runs.grade import grade
from assay.runs.plan import PlannedRun, plan, select_tasks
from assay.runs.pool import ProcessExecutor, executor_for
from assay.runs.run import BenchmarkOutcome, BenchmarkRunResult, prepare, run_benchmark
from assay.runs.taskrun import run_task

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
