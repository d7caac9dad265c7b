"""`assay export`: a stored run's task runs as JSON lines or CSV, one row per task run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from assay.cli.options import RunArgument, StoreOption
from assay.errors import UsageError


def export(
    run_id: RunArgument,
    format: Annotated[str, typer.Option("--format", help="jsonl or csv.")] = "jsonl",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")
    ] = None,
    trajectories: Annotated[
        bool, typer.Option("--trajectories", help="Add each task run's trajectory (jsonl only).")
    ] = False,
    store: StoreOption = None,
) -> None:
    """Export one row per finished task run: task, repeat, outcome, reward, score, axes, summary."""
    from assay.runs.export import FORMATS, export_rows, write_csv, write_jsonl
    from assay.runs.store import open_store

    if format not in FORMATS:
        raise UsageError(f"--format: {format!r} is not one of {', '.join(FORMATS)}")
    if trajectories and format != "jsonl":
        raise UsageError("--trajectories: only with --format jsonl")
    with open_store(store) as records:
        run = records.benchmark_run(run_id)
        results = records.results(run.id, trajectories_too=trajectories)
    rows = export_rows(run.id, results, trajectories=trajectories)
    write = write_jsonl if format == "jsonl" else write_csv
    if output is None:
        write(rows, sys.stdout)
        return
    try:
        with output.open("w", encoding="utf-8", newline="") as stream:
            write(rows, stream)
    except OSError as error:
        raise UsageError(f"--output: cannot write {output}: {error.strerror}") from None
