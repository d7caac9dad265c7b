"""A benchmark run's task runs as flat rows for training pipelines: JSON lines or CSV."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from typing import Any, TextIO

from assay.score.result import TaskRunResult
from assay.score.summary import Summary

FORMATS = ("jsonl", "csv")
COLUMNS = (
    "benchmark_run",
    "task_run",
    "task",
    "split",
    "repeat",
    "agent",
    "status",
    "outcome",
    "reward",
    "score",
    "verdict",
)


def export_rows(
    run_id: str, results: Sequence[TaskRunResult], *, trajectories: bool = False
) -> list[dict[str, Any]]:
    """One row per finished task run: ids, task, repeat, outcome, reward, score, axes, summary."""
    rows = []
    for result in results:
        row: dict[str, Any] = {
            "benchmark_run": run_id,
            "task_run": result.id,
            "task": result.task_id,
            "split": result.split,
            "repeat": result.repeat,
            "agent": result.agent,
            "status": result.status,
            "outcome": result.outcome,
            "reward": result.reward,
            "score": result.score,
            "verdict": result.verdict,
            "axes": {name: axis.score for name, axis in result.axes.items()},
            "summary": result.summary.model_dump(mode="json"),
        }
        if trajectories:
            row["trajectory"] = result.trajectory
        rows.append(row)
    return rows


def write_jsonl(rows: Sequence[dict[str, Any]], stream: TextIO) -> None:
    for row in rows:
        stream.write(json.dumps(row, separators=(",", ":")) + "\n")


def write_csv(rows: Sequence[dict[str, Any]], stream: TextIO) -> None:
    """Flat columns: `axes.<name>` and `summary.<field>`; an empty cell is a null."""
    axes = sorted({name for row in rows for name in row["axes"]})
    names = [*COLUMNS, *(f"axes.{name}" for name in axes)]
    names += [f"summary.{name}" for name in Summary.model_fields]
    writer = csv.DictWriter(stream, fieldnames=names, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        flat = flatten(row)
        writer.writerow({name: cell(flat.get(name)) for name in names})


def flatten(row: dict[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for name, value in row.items():
        if isinstance(value, dict):
            flat.update({f"{name}.{key}": inner for key, inner in value.items()})
        else:
            flat[name] = value
    return flat


def cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value
