"""`assay mcp`: serve on stdio until the client disconnects, then cancel what it left unfinished
(graded and stored like any task run)."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
from mcp.server import NotificationOptions, Server
from mcp.server.stdio import stdio_server

from assay.errors import UsageError
from assay.formats.task import TaskSpec
from assay.mcp.brief import brief_at_start
from assay.mcp.local import BenchmarkDesk, LocalRun, TaskDesk, task_plan
from assay.mcp.server import Desk, build_server
from assay.mcp.tools import RESERVED
from assay.runs.benchmark import Benchmark
from assay.runs.plan import DEFAULT_SPLITS, select_tasks
from assay.runs.store import open_store
from assay.served.auth import DAY_S, new_key
from assay.served.catalog import Catalog
from assay.served.context import Context
from assay.trust.withdrawn import withdrawn_among


def serve_task(
    world: Path, task_id: str, *, repeats: int = 1, scored: bool = False, store: str | None = None
) -> None:
    """Serve `repeats` task runs of one task, one after another."""
    context, benchmark = _open(world, store)
    task = benchmark.tasks.get(task_id)
    splits = [task.split] if task is not None else list(DEFAULT_SPLITS)
    tasks = _runnable(context, benchmark, [task_id], splits)
    slug = _slug(benchmark)
    run = LocalRun(context, task_plan(slug, [task_id], splits, repeats, scored))
    _serve(run, TaskDesk(run), brief_at_start(benchmark.world, tasks[0]))


def serve_benchmark(
    world: Path,
    *,
    tasks: Sequence[str] = (),
    splits: Sequence[str] = (),
    repeats: int = 1,
    scored: bool = False,
    store: str | None = None,
) -> None:
    """Serve a benchmark's task runs, each begun by the client's `start_task(task_id)`."""
    context, benchmark = _open(world, store)
    _runnable(context, benchmark, tasks, splits or DEFAULT_SPLITS)
    run = LocalRun(context, task_plan(_slug(benchmark), tasks, splits, repeats, scored))
    _serve(run, BenchmarkDesk(run), None)


def _open(world: Path, store: str | None) -> tuple[Context, Benchmark]:
    """The world without its withdrawn tasks (one may not load; it never blocks the others)."""
    records = open_store(store)
    catalog = Catalog([world], records)
    context = Context.open(catalog, records, new_key(), DAY_S)
    return context, next(iter(catalog.benchmarks.values()))


def _runnable(
    context: Context, benchmark: Benchmark, task_ids: Sequence[str], splits: Sequence[str]
) -> list[TaskSpec]:
    """The tasks to serve; bad input (an unknown or withdrawn task, a clashing tool) is a UsageError."""
    world = benchmark.world
    tasks = select_tasks(world, task_ids, splits)
    withdrawn = {state.task_id for state in withdrawn_among(world, tasks, context.store)}
    tasks = [task for task in tasks if task.id not in withdrawn]
    if not tasks:
        gone = f" ({', '.join(sorted(withdrawn))} withdrawn)" if withdrawn else ""
        raise UsageError(f"--task: no task to serve{gone}")
    for task in tasks:
        clash = sorted(set(world.role_tools(task.role)) & set(RESERVED))
        if clash:
            raise UsageError(
                f"{world.name}: role {task.role} has a tool named {clash[0]}, a name the MCP "
                "server keeps for its own tool"
            )
    return tasks


def _slug(benchmark: Benchmark) -> str:
    return f"{benchmark.world.name}@{benchmark.world.version}"


def _serve(run: LocalRun, desk: Desk, instructions: str | None) -> None:
    server = build_server(desk, instructions=instructions)
    try:
        anyio.run(_until_disconnected, server, run)
    finally:
        _close(run)


async def _until_disconnected(server: Server[Any], run: LocalRun) -> None:
    """Serve until stdin closes, or a signal (SIGTERM, SIGHUP, SIGINT) asks the server to stop."""
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))
    async with anyio.create_task_group() as group:
        group.start_soon(_stop_on_signal, run)
        async with stdio_server() as (read, write):
            await server.run(read, write, options)
        group.cancel_scope.cancel()


async def _stop_on_signal(run: LocalRun) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP, signal.SIGINT) as signals:
        async for _ in signals:
            _close(run)
            # stdin's reader is a thread blocked in read(), which nothing interrupts: leave now
            os._exit(0)


def _close(run: LocalRun) -> None:
    """Grade and store what the client left unfinished, and say which run holds it."""
    run_id = run.close()
    if run_id is not None:
        print(f"recorded as run {run_id}", file=sys.stderr, flush=True)
