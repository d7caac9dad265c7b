"""Hot-path figures for RL training: reset time, task runs per second, CLI start-up.

Run `python bench/taskruns.py`; it prints one JSON object. Goals (not asserted anywhere):
reset ≤ 0.5 ms per MB, ≤ 1 ms per task run of 5 tool calls and 5 checks, start-up ≤ 0.5 s,
`assay run` of one task ≤ 0.3 s.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORLD = """
name = "bench"
version = "1"
tools = ["tools.py"]

[database]
schema = "schema.sql"
seed = ["items.csv"]

[services]
email = "email"

[roles.worker]
tools = ["get_item", "rename_item", "notify"]
"""

SCHEMA = """
CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, body TEXT NOT NULL);
"""

TOOLS = '''
from assay import ToolError, tool


@tool
def get_item(world, item_id: int) -> dict:
    """Read one item."""
    item = world.db.row("SELECT id, name FROM items WHERE id = ?", item_id)
    if item is None:
        raise ToolError("not_found", f"no item {item_id}")
    return item


@tool(writes=True)
def rename_item(world, item_id: int, name: str) -> dict:
    """Rename one item."""
    world.db.execute("UPDATE items SET name = ? WHERE id = ?", name, item_id)
    return {"item_id": item_id, "name": name}


@tool(writes=True)
def notify(world, to: str, body: str) -> dict:
    """Send an email."""
    return world.services["email"].request("send", {"to": to, "subject": "s", "body": body})
'''

TASK = """
title = "Five calls, five checks"
role = "worker"

[customer]
request = "Rename items 1 and 2 and tell me."

[[checks]]
name = "Item 1 renamed"
sql = "SELECT name FROM items WHERE id = 1"
expect = "one"

[[checks]]
name = "Item 2 renamed"
sql = "SELECT name FROM items WHERE id = :id"
params = { id = 2 }
expect = "two"

[[checks]]
name = "One email"
sql = "SELECT count(*) FROM sandbox_requests WHERE service = 'email'"
expect = 1

[[checks]]
name = "Nothing else renamed"
type = "rule"
sql = "SELECT count(*) FROM items WHERE name IN ('one', 'two') AND id > 2"
expect = 0

[[checks]]
name = "Said so"
assert = "answer"
contains = ["renamed"]

[solution]
steps = [
  { call = "get_item", args = { item_id = 1 } },
  { call = "rename_item", args = { item_id = 1, name = "one" } },
  { call = "get_item", args = { item_id = 2 } },
  { call = "rename_item", args = { item_id = 2, name = "two" } },
  { call = "notify", args = { to = "me@example.com", body = "renamed" } },
  { finish = "I renamed both." },
]
"""


def write_world(root: Path, megabytes: float) -> Path:
    (root / "tasks").mkdir(parents=True)
    (root / "world.toml").write_text(WORLD)
    (root / "schema.sql").write_text(SCHEMA)
    (root / "tools.py").write_text(TOOLS)
    (root / "tasks" / "five.toml").write_text(TASK)
    rows = max(int(megabytes * 1024 * 1024 / 120), 10)
    with (root / "items.csv").open("w") as out:
        out.write("id,name,body\n")
        for number in range(1, rows + 1):
            out.write(f"{number},item {number},{'x' * 96}\n")
    return root


def reset_figures(root: Path) -> dict[str, float]:
    """A reset as task runs get it: the last copy, which changed one row, rolled back and given to
    the next task run (`reset_ms`); and a copy newly deserialized, as when the last one cannot be
    used again (`new_copy_ms`)."""
    from assay.runs import open_benchmark

    world = open_benchmark(root).world
    size_mb = len(world.snapshot.image) / 1024 / 1024
    rounds = 200 if size_mb < 5 else 50
    timings, new_copies = [], []
    live = world.reset()
    for _ in range(rounds):
        live.db.execute("UPDATE items SET name = 'changed' WHERE id = 1")
        started = time.perf_counter()
        live.close()
        live = world.reset()
        timings.append(time.perf_counter() - started)
        started = time.perf_counter()
        world.backend.snapshot.open_copy().close()
        new_copies.append(time.perf_counter() - started)
    live.close()
    per_reset_ms = statistics.median(timings) * 1000
    return {
        "size_mb": round(size_mb, 2),
        "reset_ms": round(per_reset_ms, 3),
        "reset_ms_per_mb": round(per_reset_ms / size_mb, 3),
        "new_copy_ms": round(statistics.median(new_copies) * 1000, 3),
    }


def taskrun_figures(root: Path) -> dict[str, float]:
    from assay.runs import open_benchmark, run_task
    from assay.taskrun import agent_factory

    benchmark = open_benchmark(root)
    task = benchmark.tasks["five"]
    make = agent_factory("reference")
    for _ in range(50):  # warm caches (statement parsing, pydantic validators)
        run_task(benchmark, task, make(task), run_id="warm")
    rounds = 2000
    started = time.perf_counter()
    for index in range(rounds):
        result = run_task(benchmark, task, make(task), run_id=f"tr{index}")
    elapsed = time.perf_counter() - started
    assert result.outcome == "verified", result.outcome
    return {
        "task_runs_per_s": round(rounds / elapsed, 1),
        "ms_per_task_run": round(elapsed / rounds * 1000, 3),
    }


def startup_seconds() -> float:
    assay = str(Path(sys.executable).parent / "assay")
    timings = []
    for _ in range(7):
        started = time.perf_counter()
        subprocess.run([assay, "--help"], check=True, capture_output=True)
        timings.append(time.perf_counter() - started)
    return round(statistics.median(timings), 3)


def single_task_run_seconds(scratch: Path) -> float:
    """`assay run` of worlds/shop's update-address as a process of its own, median of 7, after
    one run that builds the snapshot and keeps the proofs (as any later run finds them)."""
    assay = str(Path(sys.executable).parent / "assay")
    shop = Path(__file__).resolve().parent.parent / "worlds" / "shop"
    store = scratch / "single.db"
    command = [assay, "run", str(shop), "--task", "update-address", "--store", str(store)]
    subprocess.run(command, check=True, capture_output=True)
    timings = []
    for _ in range(7):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        timings.append(time.perf_counter() - started)
    return round(statistics.median(timings), 3)


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["ASSAY_HOME"] = str(Path(scratch) / "home")
        small = write_world(Path(scratch) / "small", 0.01)
        figures = {
            "reset_1mb": reset_figures(write_world(Path(scratch) / "one", 1)),
            "reset_10mb": reset_figures(write_world(Path(scratch) / "ten", 10)),
            "taskrun_5_calls_5_checks": taskrun_figures(small),
            "startup_help_s": startup_seconds(),
            "single_task_run_s": single_task_run_seconds(Path(scratch)),
        }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
