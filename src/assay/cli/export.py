"""`assay export`: a stored run's task runs as JSON lines, CSV or Parquet, one row per task run,
or as Harbor's job folder (one trial folder per task run)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer

from assay.cli.options import StoreOption
from assay.errors import UsageError

OptionalRunArgument = Annotated[
    str | None,
    typer.Argument(
        metavar="[RUN]",
        help="A benchmark run id, or the start of one; with --failed, optional (every run).",
    ),
]
DirectoryArgument = Annotated[
    Path | None,
    typer.Argument(
        metavar="[DIR]",
        help="With --format harbor or parquet: the folder the job folder or the "
        "<run id>.parquet file is written in.",
    ),
]
ExportFormatOption = Annotated[
    str,
    typer.Option(
        "--format",
        help="jsonl, csv, parquet (the same rows for dataset tooling; the parquet extra), "
        "bundle (one file with the run and every task run in full, which show, report, view "
        "and import open) or harbor (Harbor's job folder layout).",
    ),
]
OutputOption = Annotated[
    Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")
]
TrajectoriesOption = Annotated[
    bool,
    typer.Option(
        "--trajectories",
        help="Add each task run's trajectory (jsonl; parquet as a JSON text column).",
    ),
]
FailedOption = Annotated[
    bool,
    typer.Option(
        "--failed",
        help="Only failed task runs of train and dev tasks, with trajectories and check "
        "details (the improvement step's input); holdout is never exported this way.",
    ),
]
FailedSplitOption = Annotated[
    list[str] | None,
    typer.Option("--split", help="With --failed: train, dev or train,dev (default both)."),
]
FailedWorldOption = Annotated[
    str | None, typer.Option("--world", help="With --failed: only this world's runs.")
]


def export(
    run_id: OptionalRunArgument = None,
    directory: DirectoryArgument = None,
    format: ExportFormatOption = "jsonl",
    output: OutputOption = None,
    trajectories: TrajectoriesOption = False,
    failed: FailedOption = False,
    split: FailedSplitOption = None,
    world: FailedWorldOption = None,
    store: StoreOption = None,
) -> None:
    """Export one row per finished task run: task, repeat, outcome, reward, score, axes, summary;
    with --failed, the failed train and dev episodes in full."""
    if failed:
        _export_failed(run_id, split, world, format, output, store)
        return
    if split or world:
        raise UsageError(f"{'--split' if split else '--world'}: only with --failed")
    if run_id is None:
        raise UsageError("RUN: give a benchmark run id (or --failed for every run)")
    if format == "bundle":
        _export_bundle(run_id, output, trajectories, store)
    elif format == "harbor":
        _export_harbor(run_id, directory, store)
    elif format == "parquet":
        _export_parquet(run_id, directory, trajectories, store)
    else:
        _export_rows(run_id, directory, format, output, trajectories, store)


def _export_rows(
    run_id: str,
    directory: Path | None,
    format: str,
    output: Path | None,
    trajectories: bool,
    store: str | None,
) -> None:
    """The run's task runs as JSON lines or CSV, on stdout or in --output."""
    from assay.runs.export import FORMATS, export_rows, write_csv, write_jsonl
    from assay.runs.store import open_store

    if directory is not None:
        raise UsageError("DIR: only with --format harbor or parquet (use --output for a file)")
    if format not in FORMATS:
        known = ", ".join((*FORMATS, "parquet", "bundle", "harbor"))
        raise UsageError(f"--format: {format!r} is not one of {known}")
    if trajectories and format != "jsonl":
        raise UsageError("--trajectories: only with --format jsonl")
    with open_store(store) as records:
        run = records.benchmark_run(run_id)
        results = records.results(run.id, trajectories_too=trajectories)
    rows = export_rows(run.id, results, trajectories=trajectories)
    _write(write_jsonl if format == "jsonl" else write_csv, rows, output)


def _export_bundle(run_id: str, output: Path | None, trajectories: bool, store: str | None) -> None:
    from assay.runs.bundle import SUFFIX, write_bundle
    from assay.runs.store import open_store

    if trajectories:
        raise UsageError("--trajectories: a bundle always holds them")
    with open_store(store) as records:
        found = records.benchmark_run(run_id).id
        path = output or Path(f"{found}{SUFFIX}")
        write_bundle(records, found, path)
    size = path.stat().st_size
    typer.echo(f"wrote {path} ({size / 1024:.0f} KiB): run {found}", err=True)


def import_run(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="A bundle from assay export.")],
    store: StoreOption = None,
) -> None:
    """Load a bundle (`assay export RUN --format bundle`) into the records store."""
    from assay.runs.bundle import import_bundle
    from assay.runs.store import open_store

    with open_store(store) as records:
        run_id = import_bundle(records, file)
        shown = records.location.shown
    typer.echo(f"imported run {run_id} into {shown}")


def _export_harbor(run_id: str, directory: Path | None, store: str | None) -> None:
    from assay.runs.harbor import write_harbor_job
    from assay.runs.store import open_store

    if directory is None:
        raise UsageError("DIR: --format harbor writes a job folder; name the folder to write it in")
    with open_store(store) as records:
        run = records.benchmark_run(run_id)
        results = records.results(run.id, trajectories_too=True)
    try:
        job = write_harbor_job(run, list(results), directory)
    except OSError as error:
        raise UsageError(f"DIR: cannot write {directory}: {error.strerror}") from None
    print(f"{len(results)} trials written to {job}")


def _export_parquet(
    run_id: str, directory: Path | None, trajectories: bool, store: str | None
) -> None:
    from assay.runs.export import export_rows
    from assay.runs.store import open_store

    if directory is None:
        raise UsageError("DIR: --format parquet writes <run id>.parquet; name the folder for it")
    try:
        from assay.runs.parquet import SUFFIX, write_parquet
    except ImportError:
        raise UsageError("--format parquet: needs pyarrow: pip install 'assay[parquet]'") from None
    with open_store(store) as records:
        run = records.benchmark_run(run_id)
        results = records.results(run.id, trajectories_too=trajectories)
    rows = export_rows(run.id, results, trajectories=trajectories)
    path = directory / f"{run.id}{SUFFIX}"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        write_parquet(rows, path, trajectories=trajectories)
    except OSError as error:
        raise UsageError(f"DIR: cannot write {path}: {error.strerror or error}") from None
    print(f"{len(rows)} task runs written to {path}")


def _export_failed(
    run_id: str | None,
    split: list[str] | None,
    world: str | None,
    format: str,
    output: Path | None,
    store: str | None,
) -> None:
    from assay.runs.episodes import failed_episodes, improvement_splits
    from assay.runs.export import write_jsonl
    from assay.runs.store import open_store

    if format != "jsonl":
        raise UsageError("--format: --failed exports jsonl only (trajectories do not fit CSV)")
    chosen = improvement_splits(split)  # holdout is refused before the store is opened
    with open_store(store) as records:
        rows = failed_episodes(records, chosen, run_id=run_id, world=world)
    _write(write_jsonl, rows, output)


def _write(write: Callable[[Any, TextIO], None], rows: Any, output: Path | None) -> None:
    if output is None:
        write(rows, sys.stdout)
        return
    try:
        with output.open("w", encoding="utf-8", newline="") as stream:
            write(rows, stream)
    except OSError as error:
        raise UsageError(f"--output: cannot write {output}: {error.strerror}") from None
