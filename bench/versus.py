"""Whole-process throughput against a peer: 1,000 trivial task runs in `assay run` and 1,000 trivial
samples in inspect-ai's `inspect eval` with its mock model, each a process of its own.

Run `python bench/versus.py`; it prints one JSON object. The first run makes a virtual environment
under `$TMPDIR/assay-bench-versus` and installs inspect-ai into it; later runs reuse it. Goal (not
asserted anywhere): assay ≥ 5× as fast (`ratio` = inspect's seconds / assay's seconds).

- `assay_s`: `assay run WORLD --agent reference --repeats 1000 --workers 1 --json` on a generated
  world whose one task makes one tool call and has two SQL checks, with a store of its own.
- `assay_single_s`: `assay run WORLD --agent reference --json`, one task run, start to end.
- `inspect_s`: `inspect eval FILE --model mockllm/model --display none` of a task of 1,000 samples
  with `generate()` and an `includes()` scorer, with a log directory of its own.
Each is the median of `--rounds` runs (default 3), after one to warm the disk cache and write
bytecode: `PYTHONDONTWRITEBYTECODE` is dropped for both, so each runs as an installed package does.
`*_cpu_s` are the same runs' CPU seconds (user + system), steadier than wall time on a busy machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

REPEATS = 1000
CACHE = Path(tempfile.gettempdir()) / "assay-bench-versus"

WORLD = """
name = "versus"
version = "1"
tools = ["tools.py"]

[database]
schema = "schema.sql"
seed = ["seed.sql"]

[roles.worker]
tools = ["rename_item"]
"""

SCHEMA = "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n"
SEED = "INSERT INTO items (id, name) VALUES (1, 'first'), (2, 'second');\n"

TOOLS = '''
from assay import tool


@tool(writes=True)
def rename_item(world, item_id: int, name: str) -> dict:
    """Rename one item."""
    world.db.execute("UPDATE items SET name = ? WHERE id = ?", name, item_id)
    return {"item_id": item_id, "name": name}
'''

TASK = """
title = "One call, two checks"
role = "worker"

[customer]
request = "Rename item 1 to one."

[[checks]]
name = "Item 1 renamed"
sql = "SELECT name FROM items WHERE id = 1"
expect = "one"

[[checks]]
name = "Item 2 left alone"
type = "rule"
sql = "SELECT count(*) FROM items WHERE id = 2 AND name = 'second'"
expect = 1

[solution]
steps = [
  { call = "rename_item", args = { item_id = 1, name = "one" } },
  { finish = "Renamed." },
]
"""

INSPECT_TASK = f"""
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import includes
from inspect_ai.solver import generate


@task
def trivial():
    samples = [Sample(input=f"Say hello {{i}}", target="Default") for i in range({REPEATS})]
    return Task(dataset=samples, solver=generate(), scorer=includes())
"""


def write_world(root: Path) -> Path:
    (root / "tasks").mkdir(parents=True)
    (root / "world.toml").write_text(WORLD)
    (root / "schema.sql").write_text(SCHEMA)
    (root / "seed.sql").write_text(SEED)
    (root / "tools.py").write_text(TOOLS)
    (root / "tasks" / "rename.toml").write_text(TASK)
    return root


def inspect_venv() -> Path:
    """The cached environment's `inspect` program, installing inspect-ai on the first run."""
    program = CACHE / "venv" / "bin" / "inspect"
    if not program.exists():
        venv.create(CACHE / "venv", with_pip=True)
        pip = CACHE / "venv" / "bin" / "pip"
        subprocess.run([str(pip), "install", "-q", "inspect-ai"], check=True)
    return program


def child_env() -> dict[str, str]:
    return {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def timed(
    command: list[str], env: dict[str, str], rounds: int, cwd: Path | None = None
) -> tuple[dict, str]:
    """Median wall and CPU seconds (user + system) of `rounds` runs after one more to warm up,
    and the last run's output."""
    walls, cpus = [], []
    output = ""
    for _ in range(rounds + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if done.returncode != 0:
            raise SystemExit(f"{command[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
        output = done.stdout
    figures = {"s": statistics.median(walls[1:]), "cpu_s": statistics.median(cpus[1:])}
    return {name: round(value, 3) for name, value in figures.items()}, output


def assay_figures(scratch: Path, rounds: int) -> dict:
    world = write_world(scratch / "world")
    env = {**child_env(), "ASSAY_HOME": str(scratch / "home")}
    assay = [sys.executable, "-m", "assay", "run", str(world), "--agent", "reference"]
    store = str(scratch / "records.db")
    whole, output = timed(
        [*assay, "--repeats", str(REPEATS), "--workers", "1", "--json", "--store", store],
        env,
        rounds,
    )
    run = json.loads(output)
    assert len(run["task_runs"]) == REPEATS, len(run["task_runs"])
    assert run["benchmark_run"]["outcomes"]["verified"] == REPEATS, run["benchmark_run"]
    single, _ = timed([*assay, "--json", "--store", store], env, rounds)
    return {
        "assay_s": whole["s"],
        "assay_cpu_s": whole["cpu_s"],
        "assay_single_s": single["s"],
        "assay_single_cpu_s": single["cpu_s"],
    }


def inspect_figures(scratch: Path, rounds: int) -> dict:
    program = inspect_venv()
    source = scratch / "trivial.py"
    source.write_text(INSPECT_TASK)
    env = {**child_env(), "INSPECT_LOG_DIR": str(scratch / "logs")}
    # inspect takes a task file relative to the working directory
    command = [str(program), "eval", source.name, "--model", "mockllm/model", "--display", "none"]
    figures, _ = timed(command, env, rounds, cwd=scratch)
    return {"inspect_s": figures["s"], "inspect_cpu_s": figures["cpu_s"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skip-inspect", action="store_true", help="time assay alone")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        scratch = Path(directory)
        figures: dict = {"task_runs": REPEATS, **assay_figures(scratch, args.rounds)}
        if not args.skip_inspect:
            figures.update(inspect_figures(scratch, args.rounds))
            figures["ratio"] = round(figures["inspect_s"] / figures["assay_s"], 2)
            figures["cpu_ratio"] = round(figures["inspect_cpu_s"] / figures["assay_cpu_s"], 2)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
