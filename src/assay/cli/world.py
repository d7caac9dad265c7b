"""`assay world`: the world page — validation standing of every task, the last build's rejects,
baselines, and reset and isolation facts measured now."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

from assay.cli.options import JsonOption, StoreOption, WorldArgument
from assay.cli.output import plain_console

if TYPE_CHECKING:
    from assay.trust.world_page import WorldPage


COLOURS = {
    "validated": "green",
    "withdrawn": "red",
    "never validated": "yellow",
    "stale": "yellow",
    "held": "green",
    "changed": "red",
    "none recorded": "yellow",
    "task gone": "yellow",
}
FACTS = {
    "identical_resets": "The world resets to an identical state",
    "controlled_clock": "The clock is controlled: times come only from the world clock",
    "no_network": "No network from tools or the sandbox",
}


def world(world: WorldArgument, as_json: JsonOption = False, store: StoreOption = None) -> None:
    """Show the world page: Validation, the last build, Baselines, Reset and isolation."""
    from assay.runs.store import open_store
    from assay.trust.world_page import world_page

    with open_store(store) as records:
        page = world_page(world, records)
    if as_json:
        typer.echo(json.dumps(page.model_dump(mode="json")))
    else:
        print_page(page)


def print_page(page: WorldPage) -> None:
    from rich import box
    from rich.table import Table

    console = plain_console()
    console.print(f"[bold]{page.world}@{page.version}[/]  {page.description}")
    table = Table(title="Validation", box=box.SIMPLE_HEAD, title_justify="left")
    for heading in ("task", "split", "standing", "why"):
        table.add_column(heading, overflow="fold")
    for task in page.tasks:
        why = task.reasons or [f"changed since validated: {name}" for name in task.changed]
        table.add_row(task.task_id, task.split or "—", _coloured(task.standing), "\n".join(why))
    console.print(table)
    _print_build(page.last_build)
    baselines = Table(title="Baselines", box=box.SIMPLE_HEAD, title_justify="left")
    for heading in ("task", "status", "changes"):
        baselines.add_column(heading, overflow="fold")
    for entry in page.baselines:
        baselines.add_row(entry.task_id, _coloured(entry.status), "\n".join(entry.changes))
    console.print(baselines)
    if page.baselines_error:
        console.print(f"[red]Baselines not checked:[/] {page.baselines_error}")
    console.print("[bold]Reset and isolation[/]")
    for fact in page.isolation:
        mark = {True: "[green]✓[/]", False: "[red]✗[/]", None: "[dim]–[/]"}[fact.held]
        console.print(f" {mark} {FACTS[fact.name]}\n     [dim]{fact.measured}[/]")
        for found in fact.found:
            console.print(f"     [red]{found}[/]")


def _print_build(build: dict | None) -> None:
    from rich.markup import escape

    console = plain_console()
    if build is None:
        console.print("No build of this world is on record.\n")
        return
    console.print(
        f"[bold]Last build[/] {build['id']} by {build['model']} at {build['created_at']}: "
        f"{len(build['published'])} published, {len(build['rejected'])} could not be validated"
    )
    for rejected in build["rejected"]:
        console.print(f"  [red]✗[/] {escape(kept_out(rejected))}", highlight=False, soft_wrap=True)
    console.print()


def kept_out(rejected: dict) -> str:
    """One line for a draft a build kept out: which draft, and why (see `why_kept_out`)."""
    name = f"draft {rejected['draft']}"
    if rejected.get("task_id"):
        name += f" ({rejected['task_id']})"
    return f"{name}: {why_kept_out(rejected)}"


def why_kept_out(rejected: dict) -> str:
    """Why the draft failed, then why its repair did, when that is something else."""
    own = rejected.get("draft_reasons") or rejected["reasons"]
    why = "; ".join(own)
    if rejected["repaired"] and rejected["reasons"] != own:
        why += " — its repair: " + "; ".join(rejected["reasons"])
    return why


def _coloured(word: str) -> str:
    return f"[{COLOURS.get(word, 'white')}]{word}[/]"
