"""A benchmark run finishes: by itself when its last task run does, or cancelled; either way its
figures are aggregated from the task runs that finished."""

from __future__ import annotations

from assay.runs.aggregate import aggregate
from assay.runs.store import RunRecord
from assay.served.context import Context

FINISHED = ("completed", "cancelled")


def finish_if_done(context: Context, run_id: str) -> None:
    """Count a task run of the run as finished; the run completes itself when that was the last."""
    if context.all_finished(run_id):
        record = context.store.benchmark_run(run_id)
        if record.phase not in FINISHED:
            finish_run(context, record, "completed")  # once, whichever server gets there first


def finish_run(context: Context, record: RunRecord, phase: str) -> None:
    """Store the run as finished in `phase`, with its aggregate."""
    figures = aggregate(context.store.task_rows(record.id))
    context.store.finish_benchmark_run(
        record.id, phase=phase, status=phase, figures=figures.model_dump(mode="json")
    )
