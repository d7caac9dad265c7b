"""`assay view`: the read-only web viewer of the records store."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli.options import StoreOption

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def view(
    bundles: Annotated[
        list[Path] | None,
        typer.Argument(metavar="[BUNDLE...]", help="Bundle files to view instead of the store."),
    ] = None,
    store: StoreOption = None,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on.")] = 8080,
) -> None:
    """Serve a read-only web viewer of stored runs: runs, a run, a task run, two runs compared."""
    from assay.report.requirements import require_report_libraries

    require_report_libraries("assay view")
    from assay.runs.bundle import opened, read_bundle
    from assay.runs.store import open_store

    for path in bundles or []:
        read_bundle(path)  # a file that is not a bundle is refused, never served as nothing
    with opened([str(path) for path in bundles or []], store) as (where, _):
        _serve(open_store(where), host, port)


def _serve(records: Any, host: str, port: int) -> None:
    import uvicorn

    from assay.view.app import create_viewer

    if host not in LOOPBACK:
        typer.echo(
            f"warning: the viewer asks for no key; anyone who reaches {host}:{port} sees every "
            "run (assay serve mounts it at /view behind the operator key)",
            err=True,
        )
    typer.echo(f"viewing {records.location.shown} on http://{host}:{port}/", err=True)
    try:
        uvicorn.run(create_viewer(records), host=host, port=port, log_level="warning")
    finally:
        records.close()
