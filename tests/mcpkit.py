"""Helpers for MCP tests: the SDK's own client playing a task's reference steps, the results
`assay run --agent reference` gets, and what the store kept."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from apikit import ASSAY
from worldkit import ROOT, SHOP

from assay.runs.store import open_store
from assay.score.result import TaskRunResult

CLIENT = "mcpkit"


def client_info() -> Any:
    from mcp import types

    return types.Implementation(name=CLIENT, version="1")


def stdio(*args: str) -> Any:
    """`assay mcp ARGS` as the SDK spawns a stdio server, from the repository root."""
    from mcp import StdioServerParameters

    carried = ("PYTHONPATH", "ASSAY_HOME", "ASSAY_WORLD_DB_PREFIX")
    env = {name: os.environ[name] for name in carried if name in os.environ}
    return StdioServerParameters(command=ASSAY, args=["mcp", *args], env=env, cwd=ROOT)


async def play(session: Any, steps: list[Any]) -> list[Any]:
    """Take the steps as MCP tool calls (`say` is `reply_to_customer`), finishing at the end."""
    results = []
    for step in steps:
        if step.call is not None:
            results.append(await session.call_tool(step.call, step.args))
        elif step.say is not None:
            results.append(await session.call_tool("reply_to_customer", {"text": step.say}))
        else:
            results.append(await session.call_tool("finish", {"output": step.finish or ""}))
            return results
    results.append(await session.call_tool("finish", {"output": ""}))
    return results


def shown(result: Any) -> dict[str, Any]:
    """A tool result's JSON text; the same as its structured content."""
    data = json.loads(result.content[0].text)
    assert data == result.structured_content
    return data


@cache
def reference() -> dict[str, dict[str, Any]]:
    """Task id → the task run `assay run worlds/shop --agent reference --json` records."""
    store = Path(tempfile.mkdtemp()) / "reference.db"
    command = [ASSAY, "run", str(SHOP), "--agent", "reference", "--json", "--workers", "1"]
    done = subprocess.run(
        [*command, "--store", str(store)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return {run["task_id"]: run for run in json.loads(done.stdout)["task_runs"]}


def stored(store: Path) -> tuple[Any, list[TaskRunResult]]:
    """The newest run in the store, and its task runs with their trajectories."""
    records = open_store(str(store))
    try:
        record = records.recent(1)[0]
        return record, records.results(record.id, trajectories_too=True)
    finally:
        records.close()
