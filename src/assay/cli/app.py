"""The `assay` command: Typer for arguments, Rich for output; the logic lives in the layers below."""

from __future__ import annotations

import sys

import typer

from assay.cli import baseline, keys, scaffold
from assay.cli import build as build_command
from assay.cli import compare as compare_command
from assay.cli import export as export_command
from assay.cli import mcp as mcp_command
from assay.cli import openenv as openenv_command
from assay.cli import report as report_command
from assay.cli import run as run_command
from assay.cli import runs as runs_command
from assay.cli import serve as serve_command
from assay.cli import show as show_command
from assay.cli import validate as validate_command
from assay.cli import view as view_command
from assay.cli import world as world_command

app = typer.Typer(
    name="assay",
    help="Grade AI agents by the state they leave behind.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("run")(run_command.run)
app.command("serve")(serve_command.serve)
app.command("mcp")(mcp_command.mcp)
app.command("openenv")(openenv_command.openenv)
app.command("runs")(runs_command.runs)
app.command("show")(show_command.show)
app.command("export")(export_command.export)
app.command("compare")(compare_command.compare)
app.command("report")(report_command.report)
app.command("view")(view_command.view)
app.command("validate")(validate_command.validate)
app.command("build")(build_command.build)
app.command("world")(world_command.world)
app.command("init")(scaffold.init)
app.add_typer(baseline.app, name="baseline")
app.add_typer(keys.app, name="keys")
app.add_typer(scaffold.verifier_app, name="verifier")
app.add_typer(scaffold.task_app, name="task")


@app.callback()
def _root() -> None:
    """Grade AI agents by the state they leave behind."""


def run_app() -> None:
    """Run the CLI; a user's mistake is one line on stderr and exit code 2, never a traceback."""
    from assay.errors import SpecError, UsageError, one_line

    try:
        app()
    except (SpecError, UsageError) as error:
        print(f"error: {one_line(str(error))}", file=sys.stderr)
        sys.exit(2)
