"""`assay baseline record|check`: freeze the check runs of every scripted solution, then compare."""

from __future__ import annotations

import json

import typer

from assay.cli.options import JsonOption, TaskOption, WorldArgument

app = typer.Typer(
    help="Record the check runs of each task's reference, no-op and wrong solutions; check them.",
    no_args_is_help=True,
)


@app.command("record")
def record(world: WorldArgument, task: TaskOption = None, as_json: JsonOption = False) -> None:
    """Write WORLD/baselines/<task>.json for every task (or the named ones)."""
    from assay.cli.render import console
    from assay.formats.files import shown
    from assay.trust.baseline import record_baselines

    written = record_baselines(world, task or ())
    if as_json:
        typer.echo(json.dumps({"written": [shown(path) for path in written]}))
        return
    for path in written:
        console.print(f"Recorded {shown(path)}")


@app.command("check")
def check(world: WorldArgument, task: TaskOption = None, as_json: JsonOption = False) -> None:
    """Run every scripted solution again; print what changed, check by check; exit 1 on any change."""
    from assay.cli.trust_view import print_baseline_report
    from assay.trust.baseline import check_baselines

    report = check_baselines(world, task or ())
    if as_json:
        typer.echo(json.dumps({**report.model_dump(mode="json"), "unchanged": report.unchanged}))
    else:
        print_baseline_report(report)
    if not report.unchanged:
        raise typer.Exit(1)
