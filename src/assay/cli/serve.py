"""`assay serve`: the HTTP API on uvicorn."""

from __future__ import annotations

import gc
import os
from pathlib import Path
from typing import Annotated

import typer

from assay.cli.collector import starting
from assay.cli.options import StoreOption
from assay.cli.server_start import ReadyFileOption, StartDeadline, StartTimeoutOption, run_server

WorldsOption = Annotated[
    list[Path],
    typer.Option("--worlds", help="A world directory to serve; repeat for several."),
]
HostOption = Annotated[str, typer.Option(help="Address to listen on.")]
PortOption = Annotated[
    int, typer.Option(min=0, max=65535, help="Port to listen on (0: any free port).")
]
TokenTtlOption = Annotated[
    float, typer.Option(min=1, help="Seconds a benchmark run's bearer token lasts.")
]
MaxBodyBytesOption = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="The largest request body in bytes; larger is 413 "
        "(default: $ASSAY_MAX_BODY_BYTES, else 1048576).",
    ),
]
MllpOption = Annotated[
    int | None,
    typer.Option(
        "--mllp",
        min=0,
        max=65535,
        help="Serve HL7 v2 over MLLP on 127.0.0.1: each benchmark run whose world has an HL7 "
        "interface gets its own port, from this one up (0: any free port).",
    ),
]
SftpPortOption = Annotated[
    int | None,
    typer.Option(
        min=0,
        max=65535,
        help="Serve the worlds' file trees over SFTP on 127.0.0.1 (assay[sftp]): user = "
        "benchmark run id, password = its bearer token (0: any free port).",
    ),
]
SftpHostKeyOption = Annotated[
    Path | None,
    typer.Option(help="The SFTP host key, made on first use (default .assay/sftp_host_key)."),
]


def serve(
    worlds: WorldsOption,
    host: HostOption = "127.0.0.1",
    port: PortOption = 8000,
    store: StoreOption = None,
    token_ttl: TokenTtlOption = 24 * 3600.0,
    max_body_bytes: MaxBodyBytesOption = None,
    mllp: MllpOption = None,
    sftp_port: SftpPortOption = None,
    sftp_host_key: SftpHostKeyOption = None,
    ready_file: ReadyFileOption = None,
    start_timeout: StartTimeoutOption = None,
) -> None:
    """Serve worlds over HTTP: benchmark runs, task runs and criterion runs (the v1 flow).

    GET /v1/health answers 200 once the server listens; --ready-file and --start-timeout let
    whoever starts it wait for that rather than for a fixed time.
    """
    deadline = StartDeadline(start_timeout)
    with deadline.watching("serve"):
        with starting():  # worlds, modules and schemas live as long as the server: out of GC passes
            from assay.api.serve import KEY_ENVIRONMENT, open_api

            app, key = open_api(
                worlds,
                store=store,
                token_ttl_s=token_ttl,
                max_body_bytes=max_body_bytes,
                mllp_port=mllp,
                sftp_port=sftp_port,
                sftp_host_key=sftp_host_key,
            )
            gc.collect()  # what the start left for the collector, before the rest is frozen
        if not os.environ.get(KEY_ENVIRONMENT):
            typer.echo(f"operator key: {key}  (set {KEY_ENVIRONMENT} to choose your own)", err=True)
        served = ", ".join(str(world) for world in worlds)
        announce = f"serving {served} on {{url}}"
        run_server(app, host, port, ready_file=ready_file, deadline=deadline, announce=announce)
