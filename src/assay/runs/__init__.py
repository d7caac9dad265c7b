"""Benchmark runs: plan, execute, aggregate.

Names load on first use: `assay run` in one process never needs the process pool or Ray.
"""

from __future__ import annotations

from assay.lazy import lazy_names

# Functions named like their modules are bound now: importing the module would otherwise put the
# module under that name.
from assay.runs.aggregate import Figures as Figures
from assay.runs.aggregate import aggregate as aggregate
from assay.runs.grade import grade as grade
from assay.runs.plan import PlannedRun as PlannedRun
from assay.runs.plan import plan as plan
from assay.runs.plan import select_tasks as select_tasks

_EXPORTS = {
    "assay.runs.aggregate": ["Figures", "aggregate"],
    "assay.runs.benchmark": ["Benchmark", "open_benchmark"],
    "assay.runs.cluster": ["RayExecutor"],
    "assay.runs.execute": ["Executor", "SerialExecutor", "executor_for", "quick_runs"],
    "assay.runs.grade": ["grade"],
    "assay.runs.plan": ["PlannedRun", "plan", "select_tasks"],
    "assay.runs.pool": ["ProcessExecutor"],
    "assay.runs.run": ["BenchmarkOutcome", "BenchmarkRunResult", "prepare", "run_benchmark"],
    "assay.runs.handle": ["ResetFailed", "TaskRunHandle", "run_task"],
}
__all__, __getattr__ = lazy_names(__name__, _EXPORTS)
