"""`assay init`, `assay verifier add` and `assay task add`: a new world that passes as written;
new verifiers and tasks that fail until someone finishes them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

verifier_app = typer.Typer(help="Scaffold Python verifiers.", no_args_is_help=True)
task_app = typer.Typer(help="Scaffold tasks.", no_args_is_help=True)

WorldOption = Annotated[Path, typer.Option("--world", help="The world directory.")]


@verifier_app.callback()
def _verifier() -> None:
    """Scaffold Python verifiers."""


@task_app.callback()
def _task() -> None:
    """Scaffold tasks."""


def init(
    name: Annotated[
        Path, typer.Argument(metavar="NAME", help="The new world's directory (not there yet).")
    ],
) -> None:
    """Write a small world (one table, one tool, one task) that validates and passes as written."""
    from assay.trust.starter import init_world

    _print(init_world(name))


@verifier_app.command("add")
def add_verifier(
    verifier_id: Annotated[str, typer.Argument(metavar="VERIFIER_ID", help="e.g. VER-007.")],
    world: WorldOption,
    task: Annotated[str, typer.Option("--task", help="The task whose checks name it.")],
    name: Annotated[str, typer.Option("--name", help="What it verifies, as a sentence.")],
) -> None:
    """Write a verifier whose one check fails on purpose, and register it in the world and task."""
    from assay.trust.scaffold import add_verifier as scaffold

    _print(scaffold(world, verifier_id, task, name))


@task_app.command("add")
def add_task(
    task_id: Annotated[
        str, typer.Argument(metavar="TASK_ID", help="The task's id: its file name.")
    ],
    world: WorldOption,
    title: Annotated[str | None, typer.Option(help="The task's title.")] = None,
    role: Annotated[str | None, typer.Option(help="Its role (default: the world's first).")] = None,
    split: Annotated[str, typer.Option(help="train, dev or holdout.")] = "train",
) -> None:
    """Write tasks/TASK_ID.toml with every section sketched and commented."""
    from assay.trust.scaffold import add_task as scaffold

    _print(scaffold(world, task_id, title=title, role=role, split=split))


def _print(done) -> None:
    from assay.formats.files import shown

    typer.echo(f"Created {shown(done.created)}")
    for registered in done.registered:
        typer.echo(f"Registered {registered}")
    typer.echo(f"Next: {done.next_step}")
