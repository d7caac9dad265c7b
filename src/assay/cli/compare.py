"""`assay compare`: two stored runs, task by task, with a paired test over their shared tasks."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from assay.cli.options import JsonOption, StoreOption
from assay.cli.output import FormatOption, output_format

RunA = Annotated[str, typer.Argument(metavar="RUN_A", help="The run to compare against.")]
RunB = Annotated[str, typer.Argument(metavar="RUN_B", help="The run compared (changes are B − A).")]


def compare(
    run_a: RunA,
    run_b: RunB,
    as_json: JsonOption = False,
    fmt: FormatOption = None,
    fail_on_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-regression", help="Exit 1 when B is significantly worse than A (p < 0.05)."
        ),
    ] = False,
    store: StoreOption = None,
) -> None:
    """Compare run B with run A per task: pass rate and mean score, and a paired bootstrap."""
    from assay.report.comparison import load_comparison
    from assay.runs.store import open_store

    chosen = output_format(fmt, as_json)
    with open_store(store) as records:
        compared = load_comparison(records, run_a, run_b)
    from assay.cli.config_view import warn_config_differences

    warn_config_differences(compared)
    if chosen == "json":
        typer.echo(json.dumps(compared.as_json()))
    else:
        from assay.cli.compare_view import print_comparison

        print_comparison(compared, chosen)
    if fail_on_regression and compared.comparison.regression:
        raise typer.Exit(1)
