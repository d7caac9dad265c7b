"""Task runs in flight at once on one server process: through `assay openenv` (a WebSocket
session each; `openenv_one_thread` is the same with `--one-thread`) and through `assay serve` (an
HTTP connection each).

Run `python bench/inflight.py [--sizes 10,100,1000] [--think 0.2] [--only SURFACE]`; it prints
one JSON object. For each surface and each N, N stand-in clients in one asyncio process each hold
a task run of bench/taskruns.py's world (about 1 MB): they start it, take its five actions (two
reads, two writes, one email) with `--think` seconds of thinking before each, and finish it; all
N are in flight at once. Figures: the server's peak RSS (VmHWM, so a size's figure includes the
smaller sizes before it), its most threads and open files seen, the latency of each action
(median, 95th percentile), and actions per second against the ideal, N / think (every action answered at once). Goal (issue 34, not asserted anywhere): 1,000 in flight, ≥ 80 % of the ideal,
≤ 2 GiB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from taskruns import write_world

ROOT = Path(__file__).resolve().parent.parent
KEY = "aso_bench"
ACTIONS = [
    {"call": {"tool": "get_item", "args": {"item_id": 1}}},
    {"call": {"tool": "rename_item", "args": {"item_id": 1, "name": "one"}}},
    {"call": {"tool": "get_item", "args": {"item_id": 2}}},
    {"call": {"tool": "rename_item", "args": {"item_id": 2, "name": "two"}}},
    {"call": {"tool": "notify", "args": {"to": "me@example.com", "body": "renamed"}}},
]
FINISH = "I renamed both."
SURFACES = ["openenv", "openenv_one_thread", "api"]
Latencies = dict[str, list[float]]  # "start": the reset or start; "act": each action after it


def start_server(arguments: list[str], scratch: Path) -> tuple[subprocess.Popen, int]:
    ready = scratch / "ready.json"
    env = {
        **os.environ,
        "ASSAY_API_KEY": KEY,
        "ASSAY_HOME": str(scratch / "home"),
        "PYTHONPATH": str(ROOT / "src"),
    }
    command = [sys.executable, "-m", "assay", *arguments, "--port", "0", "--ready-file", str(ready)]
    log = (scratch / "server.log").open("w")
    process = subprocess.Popen(command, env=env, stdout=log, stderr=log)
    while not ready.exists():
        if process.poll() is not None:
            raise RuntimeError(f"{arguments[0]}: ended with exit code {process.returncode}")
        time.sleep(0.05)
    return process, json.loads(ready.read_text())["port"]


def process_figures(pid: int) -> dict[str, int]:
    status = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return {
        "rss_mib_peak": int(status["VmHWM"].split()[0]) // 1024,
        "threads": int(status["Threads"]),
        "open_files": len(os.listdir(f"/proc/{pid}/fd")),
    }


async def watch(pid: int, seen: dict[str, int], stop: asyncio.Event) -> None:
    while not stop.is_set():
        for name, value in process_figures(pid).items():
            seen[name] = max(seen.get(name, 0), value)
        await asyncio.sleep(0.1)


async def openenv_client(port: int, think_s: float, latencies: Latencies) -> str:
    """One session: reset, the five actions and finish; the outcome it ended with."""
    import websockets

    # patient clients: the server's slowness is what is measured, not cut off by client timeouts
    connecting = websockets.connect(
        f"ws://127.0.0.1:{port}/ws", max_size=None, open_timeout=None, ping_interval=None
    )
    async with connecting as session:

        async def send(message: dict, kind: str) -> dict:
            started = time.perf_counter()
            await session.send(json.dumps(message))
            answer = json.loads(await session.recv())
            latencies[kind].append(time.perf_counter() - started)
            if answer.get("type") == "error":
                raise RuntimeError(answer)
            return answer["data"]

        await send({"type": "reset", "data": {"task": "five"}}, "start")
        for action in [*ACTIONS, {"finish": FINISH}]:
            await asyncio.sleep(think_s)
            answer = await send({"type": "step", "data": action}, "act")
        await session.send(json.dumps({"type": "close"}))
        return answer["observation"]["info"].get("outcome", "none")


class Connection:
    """One keep-alive HTTP/1.1 connection, JSON in and out: the least a client can cost."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, token: str):
        self.reader, self.writer, self.token = reader, writer, token

    async def post(self, path: str, body: dict) -> dict:
        payload = json.dumps(body).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer {self.token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
        )
        self.writer.write(head.encode() + payload)
        status = int((await self.reader.readline()).split()[1])
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        data = await self.reader.readexactly(length)
        if status >= 300:
            raise RuntimeError(f"{path}: {status} {data[:200]!r}")
        return json.loads(data)


async def api_client(
    port: int, token: str, task_run: str, think_s: float, latencies: Latencies
) -> str:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    connection = Connection(reader, writer, token)
    try:

        async def post(path: str, body: dict) -> dict:
            started = time.perf_counter()
            answer = await connection.post(f"/v1/task-runs/{task_run}/{path}", body)
            latencies["start" if path == "start" else "act"].append(time.perf_counter() - started)
            return answer

        await post("start", {})
        for action in ACTIONS:
            await asyncio.sleep(think_s)
            await post("act", action)
        await asyncio.sleep(think_s)
        done = await post("complete", {"output": FINISH})
        return done["outcome"]
    finally:
        writer.close()


async def create_runs(port: int, count: int) -> list[tuple[str, str]]:
    """`count` task runs, in benchmark runs of at most 100 (the API's most repeats per run): the
    bearer token and id of each."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    operator = Connection(reader, writer, KEY)
    found: list[tuple[str, str]] = []
    try:
        while len(found) < count:
            repeats = min(100, count - len(found))
            created = await operator.post(
                "/v1/benchmark-runs", {"benchmark": "bench", "repeats": repeats}
            )
            found += [(created["bearer_token"], one["id"]) for one in created["task_runs"]]
    finally:
        writer.close()
    return found


async def population(surface: str, pid: int, port: int, size: int, think_s: float) -> dict:
    latencies: Latencies = {"start": [], "act": []}
    if surface == "api":
        task_runs = await create_runs(port, size)
        clients = [api_client(port, token, one, think_s, latencies) for token, one in task_runs]
    else:
        clients = [openenv_client(port, think_s, latencies) for _ in range(size)]
    seen: dict[str, int] = {}
    stop = asyncio.Event()
    watcher = asyncio.create_task(watch(pid, seen, stop))
    started = time.perf_counter()
    outcomes = Counter(await asyncio.gather(*clients))
    elapsed = time.perf_counter() - started
    stop.set()
    await watcher
    seen.update({"rss_mib_peak": process_figures(pid)["rss_mib_peak"]})
    actions = size * (len(ACTIONS) + 1)  # each after a think; the reset or start before them not
    ideal = size / think_s if think_s else None
    return {
        "in_flight": size,
        "outcomes": dict(outcomes),
        "wall_s": round(elapsed, 2),
        "actions_per_s": round(actions / elapsed, 1),
        "of_ideal": round(actions / elapsed / ideal, 3) if ideal else None,
        **spread("start_ms", latencies["start"]),
        **spread("act_ms", latencies["act"]),
        **seen,
    }


def spread(name: str, seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        f"{name}_median": round(statistics.median(ordered) * 1000, 1),
        f"{name}_p95": round(ordered[int(len(ordered) * 0.95)] * 1000, 1),
    }


def measure(
    surface: str, sizes: list[int], think_s: float, check_timeout_s: float | None
) -> list[dict]:
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        world = write_world(scratch / "world", 1.0)
        if check_timeout_s is not None:  # a check query's wall-clock limit (world.toml)
            spec = world / "world.toml"
            lines = spec.read_text().splitlines()
            lines.insert(2, f"check_timeout_s = {check_timeout_s}")
            spec.write_text("\n".join(lines) + "\n")
        if surface == "api":
            arguments = ["serve", "--worlds", str(world), "--store", str(scratch / "records.db")]
        else:
            arguments = ["openenv", str(world), "--max-sessions", str(max(sizes))]
            if surface == "openenv_one_thread":
                arguments.append("--one-thread")
        server, port = start_server(arguments, scratch)
        try:
            asyncio.run(population(surface, server.pid, port, 2, 0))  # warm: validators, statements
            found = []
            for size in sizes:
                try:
                    found.append(asyncio.run(population(surface, server.pid, port, size, think_s)))
                except (OSError, RuntimeError) as failure:  # recorded: the larger sizes would too
                    found.append(
                        {"in_flight": size, "failed": f"{type(failure).__name__}: {failure}"}
                    )
                    break
            return found
        finally:
            server.terminate()
            server.wait(60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10,100,1000", help="task runs in flight, in turn")
    parser.add_argument("--think", type=float, default=0.2, help="seconds before each action")
    parser.add_argument("--only", choices=SURFACES, action="append")
    parser.add_argument(
        "--check-timeout",
        type=float,
        help="seconds a check query may take (default: 2, the world's)",
    )
    options = parser.parse_args()
    sizes = [int(size) for size in options.sizes.split(",")]
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # a connection each, client side too
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    figures = {
        surface: measure(surface, sizes, options.think, options.check_timeout)
        for surface in options.only or SURFACES
    }
    print(
        json.dumps(
            {"think_s": options.think, "load_average": os.getloadavg()[0], **figures}, indent=2
        )
    )


if __name__ == "__main__":
    main()
