"""`assay mcp`: a task run served as an MCP server on stdio; any MCP client is the agent."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli.collector import starting
from assay.cli.options import SplitOption, StoreOption, TaskOption
from assay.errors import SpecError, UsageError


def mcp(
    world: Annotated[
        Path | None, typer.Argument(help="A world directory (holding world.toml).")
    ] = None,
    task: TaskOption = None,
    benchmark: Annotated[
        Path | None,
        typer.Option(
            "--benchmark",
            metavar="WORLD",
            help="Serve a whole benchmark of this world: the client begins each task run with "
            "start_task(task_id).",
        ),
    ] = None,
    repeat: Annotated[
        int,
        typer.Option(
            "--repeat", "--repeats", min=1, max=100, help="Task runs per task, one after another."
        ),
    ] = 1,
    split: SplitOption = None,
    scored: Annotated[
        bool, typer.Option("--scored", help="finish shows only outcome, reward, score, verdict.")
    ] = False,
    store: StoreOption = None,
) -> None:
    """Serve a task run over MCP on stdio: any MCP client is the agent.

    Its tools are the role's, reply_to_customer and finish. The run is recorded with the agent mcp:<client name>; a client that disconnects before finish leaves its task run cancelled, graded and stored.
    """
    if (world is None) == (benchmark is None):
        raise UsageError("WORLD: give a world with --task ID, or --benchmark WORLD")
    served = world if world is not None else benchmark
    if not served.is_dir():  # at once, before the MCP SDK and the API's layers load
        raise SpecError(str(served), None, "not a directory")
    try:
        with starting():  # the MCP SDK's models: `assay.cli.collector`
            from assay.mcp import stdio
    except ModuleNotFoundError as missing:
        if missing.name != "mcp":
            raise
        raise UsageError("assay mcp needs the MCP SDK: pip install 'assay[mcp]'") from None
    if benchmark is not None:
        stdio.serve_benchmark(
            benchmark,
            tasks=task or (),
            splits=split or (),
            repeats=repeat,
            scored=scored,
            store=store,
        )
        return
    assert world is not None
    if len(task or ()) != 1:
        raise UsageError("--task: name exactly one task to serve (or serve --benchmark WORLD)")
    if split:
        raise UsageError("--split: only with --benchmark")
    stdio.serve_task(world, (task or [""])[0], repeats=repeat, scored=scored, store=store)
