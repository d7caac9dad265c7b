"""Task runs completed per second through the HTTP API, on one uvicorn worker.

Run `python bench/api.py`; it prints one JSON object. Each task run is start, five acts (two reads,
two writes, one email) and complete, with its records stored. Clients are separate processes on
keep-alive connections, so that the server, not the client, is what is measured. Goal (not asserted
anywhere): ≥ 300 task runs per second.
"""

from __future__ import annotations

import http.client
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from taskruns import write_world

KEY = "aso_bench"
ACTIONS = [
    {"call": {"tool": "get_item", "args": {"item_id": 1}}},
    {"call": {"tool": "rename_item", "args": {"item_id": 1, "name": "one"}}},
    {"call": {"tool": "get_item", "args": {"item_id": 2}}},
    {"call": {"tool": "rename_item", "args": {"item_id": 2, "name": "two"}}},
    {"call": {"tool": "notify", "args": {"to": "me@example.com", "body": "renamed"}}},
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def request(
    connection: http.client.HTTPConnection, path: str, token: str, body: dict | None = None
):
    payload = json.dumps(body or {}).encode()
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    connection.request("POST", path, payload, headers)
    response = connection.getresponse()
    data = response.read()
    if response.status >= 300:
        raise RuntimeError(f"{path}: {response.status} {data[:200]!r}")
    return json.loads(data)


def drive(port: int, token: str, task_run_ids: list[str]) -> int:
    """One client: every task run of its share, one after another; how many verified."""
    connection = http.client.HTTPConnection("127.0.0.1", port)
    verified = 0
    for task_run_id in task_run_ids:
        request(connection, f"/v1/task-runs/{task_run_id}/start", token)
        for action in ACTIONS:
            request(connection, f"/v1/task-runs/{task_run_id}/act", token, action)
        done = request(
            connection,
            f"/v1/task-runs/{task_run_id}/complete",
            token,
            {"output": "I renamed both."},
        )
        verified += done["outcome"] == "verified"
    return verified


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process has used so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def serve(world: Path, store: Path, port: int) -> subprocess.Popen:
    assay = str(Path(sys.executable).parent / "assay")
    env = {**os.environ, "ASSAY_API_KEY": KEY}
    command = [assay, "serve", "--worlds", str(world), "--port", str(port), "--store", str(store)]
    server = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return server
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise RuntimeError("the server did not come up")


def main(runs: int = 12, clients: int = 3) -> None:
    """`runs` benchmark runs of 100 task runs each, shared among `clients` client processes."""
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["ASSAY_HOME"] = str(Path(scratch) / "home")
        world = write_world(Path(scratch) / "world", 0.01)
        port = free_port()
        server = serve(world, Path(scratch) / "records.db", port)
        try:
            operator = http.client.HTTPConnection("127.0.0.1", port)
            shares = []
            for _ in range(runs + 1):
                created = request(
                    operator, "/v1/benchmark-runs", KEY, {"benchmark": "bench", "repeats": 100}
                )
                shares.append(
                    (port, created["bearer_token"], [t["id"] for t in created["task_runs"]])
                )
            drive(*shares.pop())  # warm the server: statements, validators, snapshot
            with multiprocessing.get_context("spawn").Pool(clients) as pool:
                cpu_before, started = cpu_seconds(server.pid), time.perf_counter()
                verified = sum(pool.starmap(drive, shares))
                elapsed = time.perf_counter() - started
                server_cpu = cpu_seconds(server.pid) - cpu_before
        finally:
            server.terminate()
            server.wait(10)
    total = sum(len(share[2]) for share in shares)
    assert verified == total, (verified, total)
    print(
        json.dumps(
            {
                "task_runs": total,
                "client_processes": clients,
                "requests_per_task_run": 2 + len(ACTIONS),
                "task_runs_per_s": round(total / elapsed, 1),
                "server_cpu_ms_per_task_run": round(server_cpu / total * 1000, 3),
                "requests_per_s": round(total * (2 + len(ACTIONS)) / elapsed, 1),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
