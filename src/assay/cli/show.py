"""`assay show`: one stored benchmark run, or one task's check runs with their evidence."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from assay.cli.options import JsonOption, RunArgument, StoreOption
from assay.cli.output import FormatOption, output_format
from assay.errors import UsageError


def show(
    run_id: RunArgument,
    task: Annotated[
        str | None,
        typer.Option("--task", metavar="ID", help="A task id (all its repeats) or a task-run id."),
    ] = None,
    as_json: JsonOption = False,
    fmt: FormatOption = None,
    reveal: Annotated[
        bool, typer.Option("--reveal", help="Show details and evidence of a scored run.")
    ] = False,
    store: StoreOption = None,
) -> None:
    """Show a benchmark run's figures and task runs; with --task, its check runs and evidence."""
    from assay.cli.history import print_checks, print_state
    from assay.cli.render import print_outcome
    from assay.runs.bundle import opened
    from assay.runs.record import load_outcome
    from assay.runs.store import open_store

    chosen = output_format(fmt, as_json)
    if task is not None and chosen == "plain":
        raise UsageError("--format: plain is for tables; with --task use table or json")
    with opened([run_id], store) as (where, (run,)), open_store(where) as records:
        outcome = load_outcome(
            records, run, task=task, trajectories=task is not None, reveal=reveal
        )
    run = outcome.benchmark_run
    if task is not None and not outcome.task_runs:
        raise UsageError(f"--task: run {run.id} has no finished task run of {task!r}")
    if chosen == "json":
        typer.echo(json.dumps(outcome.as_json(trajectories=task is not None)))
        return
    if task is None:
        if chosen == "table":
            print_state(outcome)
        print_outcome(outcome, fmt=chosen)
        if chosen == "table":
            from assay.cli.config_view import print_config

            print_config(run)
    else:
        print_state(outcome)
        print_checks(outcome)
