"""The `assay` command: Typer for arguments, Rich for output; the logic lives in the layers below."""

from __future__ import annotations

import sys
from importlib import import_module

import typer

HELP = "Grade AI agents by the state they leave behind."

# Each command and group: the module that defines it and the name it has there, in the order
# `assay --help` lists them.
COMMANDS = {
    "run": ("assay.cli.run", "run"),
    "serve": ("assay.cli.serve", "serve"),
    "mcp": ("assay.cli.mcp", "mcp"),
    "openenv": ("assay.cli.openenv", "openenv"),
    "runs": ("assay.cli.runs", "runs"),
    "show": ("assay.cli.show", "show"),
    "export": ("assay.cli.export", "export"),
    "import": ("assay.cli.export", "import_run"),
    "compare": ("assay.cli.compare", "compare"),
    "report": ("assay.cli.report", "report"),
    "view": ("assay.cli.view", "view"),
    "validate": ("assay.cli.validate", "validate"),
    "build": ("assay.cli.build", "build"),
    "world": ("assay.cli.world", "world"),
    "init": ("assay.cli.scaffold", "init"),
}
GROUPS = {
    "baseline": ("assay.cli.baseline", "app"),
    "keys": ("assay.cli.keys", "app"),
    "verifier": ("assay.cli.scaffold", "verifier_app"),
    "task": ("assay.cli.scaffold", "task_app"),
}


def build_app(only: str | None = None) -> typer.Typer:
    """The command line with every command, or with `only` that one: Typer works out each
    command's parameters from its signature when it runs, so `assay run` spares the other twenty."""
    app = typer.Typer(
        name="assay",
        help=HELP,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    app.callback()(_root)
    for name, (module, attribute) in COMMANDS.items():
        if only in (None, name):
            app.command(name)(getattr(import_module(module), attribute))
    for name, (module, attribute) in GROUPS.items():
        if only in (None, name):
            app.add_typer(getattr(import_module(module), attribute), name=name)
    return app


def _root() -> None:
    """Grade AI agents by the state they leave behind."""
    from assay.cli.collector import resume

    resume()  # paused while the command line was read (`assay.cli.collector`)


def __getattr__(name: str) -> typer.Typer:
    if name == "app":  # the whole command line, for its reference and help
        return build_app()
    raise AttributeError(name)


def run_app() -> None:
    """Run the CLI; a user's mistake is one line on stderr and exit code 2, never a traceback."""
    from assay.errors import SpecError, UsageError, WorkerFailure, one_line

    asked = sys.argv[1] if len(sys.argv) > 1 else None
    app = build_app(asked if asked in COMMANDS or asked in GROUPS else None)
    try:
        app()
    except (SpecError, UsageError) as error:
        print(f"error: {one_line(str(error))}", file=sys.stderr)
        sys.exit(2)
    except WorkerFailure as error:
        if "\n" in str(error).strip():
            raise  # a worker's own traceback: a bug, shown whole
        # a worker killed from outside, or crashed: one line, and the run is kept as failed
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
