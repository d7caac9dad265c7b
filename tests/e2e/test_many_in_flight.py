"""Many task runs in flight at once on one server process, through `assay openenv` and through
`assay serve`: each writes the same row of its own world, all wait until every one has written,
and each then reads back its own value, never another's."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from processkit import READY_BOUND_S

ROOT = Path(__file__).resolve().parents[2]
IN_FLIGHT = 50
KEY = "aso_in-flight"

TOOLS = '''
from assay import tool


@tool
def get_item(world, item_id: int) -> dict:
    """Read one item."""
    return world.db.row("SELECT id, name FROM items WHERE id = ?", item_id)


@tool(writes=True)
def rename_item(world, item_id: int, name: str) -> dict:
    """Rename one item."""
    world.db.execute("UPDATE items SET name = ? WHERE id = ?", name, item_id)
    return {"item_id": item_id, "name": name}
'''
TASK = """
title = "Rename item 1"
role = "clerk"

[customer]
request = "Rename item 1."

[[checks]]
name = "Renamed"
sql = "SELECT count(*) FROM items WHERE id = 1 AND name LIKE 'run-%'"
expect = 1

[solution]
steps = [
  { call = "rename_item", args = { item_id = 1, name = "run-0" } },
  { finish = "Renamed." },
]
"""


def write_world(root: Path) -> Path:
    (root / "tasks").mkdir(parents=True)
    (root / "world.toml").write_text(
        'name = "flight"\nversion = "1"\ntools = ["tools.py"]\n\n[database]\n'
        'schema = "schema.sql"\nseed = ["seed.sql"]\n\n'
        '[roles.clerk]\ntools = ["get_item", "rename_item"]\n'
    )
    (root / "schema.sql").write_text("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT);\n")
    (root / "seed.sql").write_text("INSERT INTO items VALUES (1, 'first'), (2, 'second');\n")
    (root / "tools.py").write_text(TOOLS)
    (root / "tasks" / "rename.toml").write_text(TASK)
    return root


@contextmanager
def started(tmp_path: Path, *arguments: str) -> Iterator[int]:
    """A server of ours on any free port, until the block ends; its port, from --ready-file."""
    ready = tmp_path / "ready.json"
    env = {
        **os.environ,
        "ASSAY_API_KEY": KEY,
        "ASSAY_HOME": str(tmp_path / "home"),
        "PYTHONPATH": str(ROOT / "src"),
    }
    command = [sys.executable, "-c", "from assay.cli import main; main()", *arguments]
    log = tmp_path / "server.log"
    with log.open("w") as sink:
        process = subprocess.Popen(
            [*command, "--port", "0", "--ready-file", str(ready)], env=env, stderr=sink
        )
    try:
        deadline = time.monotonic() + READY_BOUND_S
        while not ready.exists():
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the server never listened"
            time.sleep(0.05)
        yield json.loads(ready.read_text())["port"]
    finally:
        process.terminate()
        process.wait(60)


def action(tool: str, **args: object) -> dict:
    return {"call": {"tool": tool, "args": args}}


def threads_of(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("Threads:", 1)[1].split()[0])


@pytest.mark.parametrize("one_thread", [False, True], ids=["a-thread-a-session", "one-thread"])
def test_fifty_openenv_sessions_at_once_each_read_back_what_they_wrote(tmp_path, one_thread):
    pytest.importorskip("openenv.core")
    import websockets

    world = write_world(tmp_path / "world")
    threads: list[int] = []  # the server's, once every session has renamed

    async def sessions(port: int) -> list[tuple[str, float]]:
        renamed = asyncio.Barrier(IN_FLIGHT)
        pid = json.loads((tmp_path / "ready.json").read_text())["pid"]

        async def one(number: int) -> tuple[str, float]:
            async with websockets.connect(f"ws://127.0.0.1:{port}/ws") as session:

                async def send(kind: str, data: dict) -> dict:
                    await session.send(json.dumps({"type": kind, "data": data}))
                    answer = json.loads(await session.recv())
                    assert answer["type"] == "observation", answer
                    return answer["data"]

                await send("reset", {"task": "rename"})
                await send("step", action("rename_item", item_id=1, name=f"run-{number}"))
                if await renamed.wait() == 0:  # every task run has renamed item 1 by now
                    threads.append(threads_of(pid))
                read = await send("step", action("get_item", item_id=1))
                done = await send("step", {"finish": "Renamed."})
                return read["observation"]["observation"]["events"][-1]["result"]["name"], done[
                    "reward"
                ]

        return await asyncio.gather(*(one(number) for number in range(IN_FLIGHT)))

    arguments = ("openenv", str(world), "--max-sessions", str(IN_FLIGHT))
    with started(tmp_path, *arguments, *(["--one-thread"] if one_thread else [])) as port:
        seen = asyncio.run(sessions(port))
    assert seen == [(f"run-{number}", 1.0) for number in range(IN_FLIGHT)]
    # a thread a session, or one for them all (and the server's few of its own)
    assert (threads[0] < 16) if one_thread else (threads[0] > IN_FLIGHT), threads


def test_fifty_api_task_runs_at_once_each_read_back_what_they_wrote(tmp_path):
    world = write_world(tmp_path / "world")
    seen: dict[int, tuple[str, str]] = {}
    renamed = threading.Barrier(IN_FLIGHT, timeout=READY_BOUND_S)

    def post(connection: http.client.HTTPConnection, path: str, token: str, body: dict) -> dict:
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        connection.request("POST", path, json.dumps(body), headers)
        answer = connection.getresponse()
        data = answer.read()
        assert answer.status < 300, (path, answer.status, data)
        return json.loads(data)

    def one(port: int, token: str, number: int, task_run: str) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=READY_BOUND_S)
        base = f"/v1/task-runs/{task_run}"
        post(connection, f"{base}/start", token, {})
        post(
            connection, f"{base}/act", token, action("rename_item", item_id=1, name=f"run-{number}")
        )
        renamed.wait()
        read = post(connection, f"{base}/act", token, action("get_item", item_id=1))
        done = post(connection, f"{base}/complete", token, {"output": "Renamed."})
        seen[number] = (read["events"][-1]["result"]["name"], done["outcome"])

    store = str(tmp_path / "records.db")
    with started(tmp_path, "serve", "--worlds", str(world), "--store", store) as port:
        operator = http.client.HTTPConnection("127.0.0.1", port, timeout=READY_BOUND_S)
        run = post(
            operator, "/v1/benchmark-runs", KEY, {"benchmark": "flight", "repeats": IN_FLIGHT}
        )
        task_runs = [task_run["id"] for task_run in run["task_runs"]]
        clients = [
            threading.Thread(target=one, args=(port, run["bearer_token"], number, task_run))
            for number, task_run in enumerate(task_runs)
        ]
        for client in clients:
            client.start()
        for client in clients:
            client.join()
    assert seen == {number: (f"run-{number}", "verified") for number in range(IN_FLIGHT)}
