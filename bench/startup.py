"""How long each server takes to give its first answer: `assay serve`, its MCP route over HTTP,
`assay mcp` on stdio and `assay openenv`, each started as a process of its own on worlds/shop.

Run `python bench/startup.py [--rounds N]`; it prints one JSON object. For each server: the median,
least and most wall seconds from starting the process to the first answer (the health route
answering 200; for MCP, the answer to `initialize`), and the process CPU seconds spent by then
(less sensitive than wall time to other work on the machine). One round before the measured ones
builds the world's snapshot and keeps its proofs. Goal (not asserted anywhere): ≤ 1 s, quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORLD = ROOT / "worlds" / "shop"
TASK = "update-address"
KEY = "aso_bench"
ASSAY = [sys.executable, "-m", "assay"]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process has used so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def poll(process: subprocess.Popen, ask) -> None:
    """Call `ask()` until it returns without an OSError; RuntimeError if the process ends."""
    while process.poll() is None:
        try:
            ask()
            return
        except OSError:
            time.sleep(0.005)
    raise RuntimeError(f"{process.args}: ended with exit code {process.returncode}")


def http_ready(url: str):
    def ask() -> None:
        with urllib.request.urlopen(url, timeout=5) as answer:
            answer.read()

    return ask


def post(url: str, body: dict, headers: dict[str, str]) -> tuple[dict[str, str], bytes]:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json", **headers}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return dict(answer.headers), answer.read()


def time_serve(env: dict[str, str], store: Path, with_mcp: bool) -> tuple[float, float]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [*ASSAY, "serve", "--worlds", str(WORLD), "--port", str(port), "--store", str(store)]
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    try:
        poll(process, http_ready(f"{base}/v1/health"))
        if with_mcp:
            bearer = {"Authorization": f"Bearer {KEY}"}
            _, created = post(f"{base}/v1/benchmark-runs", {"benchmark": "shop"}, bearer)
            task_run = json.loads(created)["task_runs"][0]["id"]
            accept = {"Accept": "application/json, text/event-stream"}
            post(f"{base}/v1/task-runs/{task_run}/mcp", INITIALIZE, {**bearer, **accept})
        return time.perf_counter() - started, cpu_seconds(process.pid)
    finally:
        process.terminate()
        process.wait(30)


def time_openenv(env: dict[str, str], _: Path) -> tuple[float, float]:
    port = free_port()
    command = [*ASSAY, "openenv", str(WORLD), "--port", str(port)]
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    try:
        poll(process, http_ready(f"http://127.0.0.1:{port}/health"))
        return time.perf_counter() - started, cpu_seconds(process.pid)
    finally:
        process.terminate()
        process.wait(30)


def time_mcp_stdio(env: dict[str, str], store: Path) -> tuple[float, float]:
    command = [*ASSAY, "mcp", str(WORLD), "--task", TASK, "--store", str(store)]
    started = time.perf_counter()
    process = subprocess.Popen(
        command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        process.stdin.flush()
        if not process.stdout.readline():
            raise RuntimeError(f"assay mcp: ended with exit code {process.wait()}")
        return time.perf_counter() - started, cpu_seconds(process.pid)
    finally:
        process.stdin.close()
        process.wait(30)


SERVERS = {
    "serve": lambda env, store: time_serve(env, store, with_mcp=False),
    "serve_mcp_http": lambda env, store: time_serve(env, store, with_mcp=True),
    "mcp_stdio": time_mcp_stdio,
    "openenv": time_openenv,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="measured rounds (default 5)")
    parser.add_argument("--only", choices=sorted(SERVERS), action="append", help="repeatable")
    options = parser.parse_args()
    chosen = options.only or list(SERVERS)
    with tempfile.TemporaryDirectory() as scratch:
        env = {  # bytecode kept, as an installed package has it (written by the first round)
            **{
                name: value
                for name, value in os.environ.items()
                if name != "PYTHONDONTWRITEBYTECODE"
            },
            "PYTHONPYCACHEPREFIX": str(Path(scratch) / "bytecode"),
            "ASSAY_HOME": str(Path(scratch) / "home"),
            "ASSAY_API_KEY": KEY,
            "PYTHONPATH": os.pathsep.join(
                filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])
            ),
        }
        timings: dict[str, list[tuple[float, float]]] = {name: [] for name in chosen}
        for round_number in range(options.rounds + 1):
            for name in chosen:  # interleaved, so that a busy minute is shared
                measured = SERVERS[name](env, Path(scratch) / f"{name}-{round_number}.db")
                if round_number:
                    timings[name].append(measured)
    print(
        json.dumps(
            {
                "load_average": os.getloadavg()[0],
                "rounds": options.rounds,
                **{name: summary(values) for name, values in timings.items()},
            },
            indent=2,
        )
    )


def summary(values: list[tuple[float, float]]) -> dict[str, float]:
    walls = [wall for wall, _ in values]
    return {
        "first_answer_s": round(statistics.median(walls), 3),
        "least_s": round(min(walls), 3),
        "most_s": round(max(walls), 3),
        "cpu_s": round(statistics.median(cpu for _, cpu in values), 3),
    }


if __name__ == "__main__":
    main()
