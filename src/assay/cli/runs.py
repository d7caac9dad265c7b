"""`assay runs`: the benchmark runs in the store, newest first."""

from __future__ import annotations

import dataclasses
import json
from typing import Annotated

import typer

from assay.cli.options import JsonOption, StoreOption
from assay.cli.output import FormatOption, output_format


def runs(
    limit: Annotated[int, typer.Option(min=1, help="How many runs to list.")] = 20,
    as_json: JsonOption = False,
    fmt: FormatOption = None,
    store: StoreOption = None,
) -> None:
    """List recent benchmark runs: phase, task runs finished, score and verdict."""
    from assay.cli.history import print_runs
    from assay.runs.store import open_store

    chosen = output_format(fmt, as_json)
    with open_store(store) as records:
        recent = records.recent(limit)
    if chosen == "json":
        rows = [_listed(record) for record in recent]
        typer.echo(json.dumps({"benchmark_runs": rows}))
    else:
        print_runs(recent, chosen)


def _listed(record) -> dict:
    row = dataclasses.asdict(record)
    del row["figures"]
    return row
