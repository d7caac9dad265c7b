"""Benchmark runs: plan, execute, aggregate.

Names are imported on first use, so that a process needing one module (the records store) does
not pay for the executors, aggregation and grading.
"""

from __future__ import annotations

from assay.lazy import lazy_names

_EXPORTS = {
    "assay.runs.aggregate": ["Figures", "aggregate"],
    "assay.runs.benchmark": ["Benchmark", "open_benchmark"],
    "assay.runs.cluster": ["RayExecutor"],
    "assay.runs.execute": ["Executor", "SerialExecutor"],
    "assay.runs.grade": ["grade"],
    "assay.runs.plan": ["PlannedRun", "plan", "select_tasks"],
    "assay.runs.pool": ["ProcessExecutor", "executor_for"],
    "assay.runs.run": ["BenchmarkOutcome", "BenchmarkRunResult", "prepare", "run_benchmark"],
    "assay.runs.taskrun": ["run_task"],
}
__all__, __getattr__ = lazy_names(__name__, _EXPORTS)
