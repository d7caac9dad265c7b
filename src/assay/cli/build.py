"""`assay build`: a model drafts tasks for a world; only the drafts that pass every proof are
published to its tasks/ folder."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from assay.cli.options import JsonOption, StoreOption, WorldArgument
from assay.cli.output import plain_console

if TYPE_CHECKING:
    from assay.trust.drafting.build import BuildRecord


def build(
    world: WorldArgument,
    model: Annotated[
        str, typer.Option(metavar="NAME", help="The model that drafts the tasks (required).")
    ],
    count: Annotated[int, typer.Option(min=1, max=50, help="Tasks to draft (default: 3).")] = 3,
    split: Annotated[
        str, typer.Option(help="The split the published tasks join: train, dev or holdout.")
    ] = "train",
    brief: Annotated[
        str | None, typer.Option(help="What the tasks should be about, in a sentence or two.")
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(help="An OpenAI-compatible endpoint (else $OPENAI_BASE_URL)."),
    ] = None,
    temperature: Annotated[float | None, typer.Option(help="Sampling temperature.")] = None,
    seed: Annotated[int | None, typer.Option(help="The provider's sampling seed.")] = None,
    model_retries: Annotated[
        int, typer.Option(min=0, help="Retries of a request that got 429, 5xx or timed out.")
    ] = 4,
    model_timeout: Annotated[
        float, typer.Option(min=0.001, metavar="SECONDS", help="One request's time limit.")
    ] = 120.0,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Draft tasks with a model, prove each one fair, repair a failing draft once, publish only
    what passes every proof; the build is kept in the records store."""
    from assay.errors import UsageError
    from assay.provider import ModelOptions
    from assay.runs.store import open_store
    from assay.trust.drafting.build import build_tasks

    if split not in ("train", "dev", "holdout"):
        raise UsageError(f"--split: {split!r} is not train, dev or holdout")
    options = ModelOptions(
        base_url=base_url,
        temperature=temperature,
        seed=seed,
        retries=model_retries,
        timeout_s=model_timeout,
    )
    with open_store(store) as records:
        record = build_tasks(
            world,
            model,
            count=count,
            split=split,  # type: ignore[arg-type]
            brief=brief,
            options=options,
            store=records,
        )
    if as_json:
        typer.echo(json.dumps(record.model_dump(mode="json")))
    else:
        print_build(record)
    if not record.published:
        raise typer.Exit(1)


def print_build(record: BuildRecord) -> None:
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    from assay.cli.world import why_kept_out

    console = plain_console()
    table = Table(title=f"{record.world}@{record.version} · build {record.id}", box=box.SIMPLE_HEAD)
    for heading in ("draft", "task", "verdict", "why"):
        table.add_column(heading, overflow="fold")
    for draft in record.drafts:
        label = str(draft.number) + (f" (repair of {draft.repair_of})" if draft.repair_of else "")
        verdict = "[green]passed[/]" if draft.passed else "[red]failed[/]"
        table.add_row(label, draft.task_id or "—", verdict, "\n".join(draft.reasons) or "")
    console.print(table)
    for task in record.published:
        console.print(f"[green]published[/] {task.file}")
    for rejected in record.rejected:
        name = f" ({rejected.task_id})" if rejected.task_id else ""
        tried = "after a repair" if rejected.repaired else "no repair tried"
        why = escape(why_kept_out(rejected.model_dump()))
        console.print(f"[red]not published[/] draft {rejected.draft}{name}, {tried}: {why}")
    usage = record.usage
    console.print(
        f"{len(record.published)} published, {len(record.rejected)} not published · "
        f"{usage['model_calls']} model calls, {usage['prompt_tokens']} prompt and "
        f"{usage['completion_tokens']} completion tokens"
    )
