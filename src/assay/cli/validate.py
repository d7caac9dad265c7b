"""`assay validate`: prove each task of a world fair, or list each task's standing."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from assay.cli.options import JsonOption, StoreOption, TaskOption, WorldArgument
from assay.cli.output import FormatOption, output_format
from assay.errors import SpecError

if TYPE_CHECKING:
    pass


def validate(
    world: WorldArgument,
    task: TaskOption = None,
    as_json: JsonOption = False,
    fmt: FormatOption = None,
    live: Annotated[
        str | None,
        typer.Option(
            "--live",
            metavar="AGENT",
            help="Also let this agent attempt each task (informational; never fails a task).",
        ),
    ] = None,
    live_repeats: Annotated[
        int,
        typer.Option(
            min=1,
            help="Tries of the --live agent per task; a task it fails in every try is marked a "
            "withdrawn candidate.",
        ),
    ] = 1,
    listing: Annotated[
        bool,
        typer.Option(
            "--list", help="List each task's standing from its last validation; runs nothing."
        ),
    ] = False,
    world_db: Annotated[
        str | None,
        typer.Option(
            help="Prove the tasks on this PostgreSQL server (postgresql://user@host:port/db) "
            "rather than SQLite; also $ASSAY_WORLD_DB.",
        ),
    ] = None,
    store: StoreOption = None,
) -> None:
    """Prove each task fair: static, no-op fails, reference passes, wrong solutions fail, replay."""
    chosen = output_format(fmt, as_json)
    if not world.is_dir():  # at once, before the world and runs layers load
        raise SpecError(str(world), None, "not a directory")
    if listing:
        _list(world, task or (), chosen, store)
        return
    from assay.cli.trust_view import print_validation
    from assay.trust.store import default_store
    from assay.trust.validate import save_validation, validate_world

    report = validate_world(world, task or (), live, live_repeats, world_db)
    save_validation(report, default_store(store))
    if chosen == "json":
        typer.echo(json.dumps(report.model_dump(mode="json")))
    else:
        print_validation(report, chosen)
    if not report.passed:
        raise typer.Exit(1)


def _list(
    world: WorldArgument,
    task_ids: list[str] | tuple[str, ...],
    chosen: str,
    store: str | None,
) -> None:
    from assay.trust.store import default_store
    from assay.trust.withdrawn import world_spec, world_states

    spec = world_spec(world)  # a world that does not read fails before the store opens
    states = world_states(world, task_ids, default_store(store))
    if chosen == "json":
        typer.echo(json.dumps({"tasks": [state.model_dump(mode="json") for state in states]}))
    else:
        from assay.cli.trust_view import print_states

        print_states(f"{spec.name}@{spec.version}", states, chosen)
