"""`assay openenv`: a world served to OpenEnv clients, each reset a fresh task run."""

from __future__ import annotations

from typing import Annotated

import typer

from assay.cli.collector import starting
from assay.cli.options import TaskOption, WorldArgument
from assay.cli.server_start import ReadyFileOption, StartDeadline, StartTimeoutOption, run_server
from assay.errors import UsageError

HOST = "127.0.0.1"  # loopback only: the server has no authentication


def openenv(
    world: WorldArgument,
    task: TaskOption = None,
    split: Annotated[
        list[str] | None,
        typer.Option(
            "--split", help="Draw tasks from train, dev or holdout; repeatable (default: train)."
        ),
    ] = None,
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port to listen on (0: any free port).")
    ] = 8000,
    max_sessions: Annotated[
        int, typer.Option(min=1, help="Client sessions at once, each with its own task run.")
    ] = 16,
    one_thread: Annotated[
        bool,
        typer.Option(
            "--one-thread",
            help="Take every session's steps on one thread, not a thread a session: faster with "
            "many sessions whose steps never wait, but a step that waits (a model customer, a "
            "judge, a sandbox) holds up every session.",
        ),
    ] = False,
    include_withdrawn: Annotated[
        bool,
        typer.Option("--include-withdrawn", help="Also serve tasks whose last validation failed."),
    ] = False,
    ready_file: ReadyFileOption = None,
    start_timeout: StartTimeoutOption = None,
) -> None:
    """Serve a world through OpenEnv (openenv-core): reset starts a task run, step takes one action.

    GET /health answers 200 once the server listens; --ready-file and --start-timeout let whoever
    starts it wait for that rather than for a fixed time.
    """
    deadline = StartDeadline(start_timeout)
    with deadline.watching("openenv"):
        with starting():  # openenv-core, the world and its tasks: `assay.cli.collector`
            try:
                from assay.openenv.server import openenv_app
            except ImportError:
                raise UsageError(
                    "openenv: needs the openenv extra; pip install 'assay[openenv]'"
                ) from None
            from assay.rl.pool import TaskPool

            pool = TaskPool.open(
                world,
                task,
                split,
                include_withdrawn=include_withdrawn,
                agent="openenv",
                names=("--task", "--split"),
            )
        try:
            app = openenv_app(pool, max_sessions, one_thread=one_thread)
            tasks = ", ".join(task.id for task in pool.tasks)
            announce = f"serving {world} (tasks: {tasks}) on {{url}}"
            run_server(app, HOST, port, ready_file=ready_file, deadline=deadline, announce=announce)
        finally:
            pool.close()
