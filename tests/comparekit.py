"""Results less what differs from one run of the same task runs to the next: ids, timestamps and
durations. Executors, backends and worker counts must give the same rest."""

from __future__ import annotations

from typing import Any

VARYING = ("id", "started_at", "duration_s")


def comparable_result(result: Any) -> dict[str, Any]:
    """A task run's result in its JSON form, less what varies."""
    shown = result.as_json()
    for key in VARYING:
        shown.pop(key)
    return shown


def comparable(outcome: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A benchmark run and its task runs, less what varies."""
    run = outcome.benchmark_run.model_dump(mode="json")
    for key in ("id", "started_at", "finished_at"):
        run.pop(key)
    return run, [comparable_result(result) for result in outcome.task_runs]
