"""`assay keys`: API keys with scopes, kept hashed in the records store."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from assay.cli.options import JsonOption, StoreOption
from assay.cli.output import plain_console

app = typer.Typer(help="API keys with scopes: evaluate, build, admin.", no_args_is_help=True)


@app.command("create")
def create(
    scope: Annotated[
        str,
        typer.Option(
            help="evaluate (run published tasks), build (also read tasks and "
            "failed train/dev episodes) or admin (everything)."
        ),
    ],
    name: Annotated[str, typer.Option(help="A label to know the key by.")] = "",
    expires: Annotated[
        str | None,
        typer.Option(
            metavar="WHEN", help="30d, 12h, 15m, 90s or an ISO-8601 time (default: never)."
        ),
    ] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Create a key; its secret is printed this once and stored only as a hash."""
    from assay.runs.keys import create_key, now_stamp
    from assay.runs.store import open_store

    with open_store(store) as records:
        secret, record = create_key(records, scope, name, expires)
    if as_json:
        typer.echo(json.dumps({**record.as_json(now_stamp()), "key": secret}))
        return
    console = plain_console()
    console.print(f"{record.id} ({record.scope}): [bold]{secret}[/]")
    console.print("[dim]Keep it now: only its hash is stored.[/]")


@app.command("list")
def list_keys(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Every key with its scope and state; never a secret."""
    from assay.runs.keys import now_stamp
    from assay.runs.store import open_store

    with open_store(store) as records:
        keys = records.api_keys()
    moment = now_stamp()
    if as_json:
        typer.echo(json.dumps({"keys": [key.as_json(moment) for key in keys]}))
        return
    from rich import box
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD)
    for heading in ("id", "name", "scope", "state", "created", "expires"):
        table.add_column(heading)
    for key in keys:
        table.add_row(
            key.id,
            key.name,
            key.scope,
            key.state(moment),
            key.created_at,
            key.expires_at or "never",
        )
    plain_console().print(table)


@app.command("revoke")
def revoke(
    key_id: Annotated[str, typer.Argument(metavar="KEY_ID", help="The key's id (key_…).")],
    store: StoreOption = None,
) -> None:
    """Revoke a key: the API refuses it from its next request on."""
    from assay.errors import UsageError
    from assay.runs.store import open_store

    with open_store(store) as records:
        key = records.revoke_key(key_id)
    if key is None:
        raise UsageError(f"KEY_ID: no key {key_id!r} (see assay keys list)")
    plain_console().print(f"{key.id} revoked at {key.revoked_at}")
