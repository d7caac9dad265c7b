"""Whole-process throughput against a peer: 1,000 trivial task runs in `assay run` and 1,000 trivial
samples in inspect-ai's `inspect eval` with its mock model, each a process of its own.

Run `python bench/versus.py`; it prints one JSON object. The first run makes a virtual environment
under `$TMPDIR/assay-bench-versus` and installs inspect-ai into it; later runs reuse it. Goal (not
asserted anywhere): assay ≥ 5× as fast (`ratio`).

- `assay_s`: `assay run WORLD --agent reference --repeats 1000 --workers 1 --json` on a generated
  world whose one task makes one tool call and has two SQL checks, with a store of its own.
- `assay_single_s`: `assay run WORLD --agent reference --json`, one task run, start to end.
- `inspect_s`: `inspect eval FILE --model mockllm/model --display none` of a task of 1,000 samples
  with `generate()` and an `includes()` scorer, with a log directory of its own.
The three run in turn, `--rounds` times (default 5) after one round to warm the disk cache and write
bytecode (`PYTHONDONTWRITEBYTECODE` is dropped for both, so each runs as an installed package
does); each figure is the median of its rounds. `*_cpu_s` are the same runs' CPU seconds (user +
system), steadier than wall time on a busy machine. `pair_ratios` is inspect's seconds over assay's
in each round, and `ratio` (`cpu_ratio`) their median: the pairs ran in the same minutes.
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


class Timed:
    """One command, run again and again: wall and CPU seconds (user + system) of each run."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path | None = None):
        self.command, self.env, self.cwd = command, env, cwd
        self.walls: list[float] = []
        self.cpus: list[float] = []
        self.output = ""

    def once(self) -> None:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(
            self.command, env=self.env, cwd=self.cwd, capture_output=True, text=True
        )
        self.walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if done.returncode != 0:
            raise SystemExit(f"{self.command[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
        self.output = done.stdout

    def figures(self, name: str) -> dict[str, float]:
        """Medians of the runs after the first (which warmed the disk cache and wrote bytecode)."""
        return {
            f"{name}_s": round(statistics.median(self.walls[1:]), 3),
            f"{name}_cpu_s": round(statistics.median(self.cpus[1:]), 3),
        }


def assay_commands(scratch: Path) -> tuple[Timed, Timed]:
    """The 1,000-task-run command and the one-task-run command, on a world and store of their own."""
    world = write_world(scratch / "world")
    env = {**child_env(), "ASSAY_HOME": str(scratch / "home")}
    assay = [sys.executable, "-m", "assay", "run", str(world), "--agent", "reference"]
    store = ["--json", "--store", str(scratch / "records.db")]
    whole = Timed([*assay, "--repeats", str(REPEATS), "--workers", "1", *store], env)
    return whole, Timed([*assay, *store], env)


def check_assay_output(whole: Timed) -> None:
    run = json.loads(whole.output)
    assert len(run["task_runs"]) == REPEATS, len(run["task_runs"])
    assert run["benchmark_run"]["outcomes"]["verified"] == REPEATS, run["benchmark_run"]


def inspect_command(scratch: Path) -> Timed:
    program = inspect_venv()
    source = scratch / "trivial.py"
    source.write_text(INSPECT_TASK)
    env = {**child_env(), "INSPECT_LOG_DIR": str(scratch / "logs")}
    # inspect takes a task file relative to the working directory
    command = [str(program), "eval", source.name, "--model", "mockllm/model", "--display", "none"]
    return Timed(command, env, cwd=scratch)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip-inspect", action="store_true", help="time assay alone")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        scratch = Path(directory)
        whole, single = assay_commands(scratch)
        peer = None if args.skip_inspect else inspect_command(scratch)
        for _ in range(args.rounds + 1):  # the first round warms up; each round alternates
            for timed in (whole, single, peer):
                if timed is not None:
                    timed.once()
        check_assay_output(whole)
        figures: dict = {"task_runs": REPEATS, "rounds": args.rounds}
        figures.update({**whole.figures("assay"), **single.figures("assay_single")})
        if peer is not None:
            figures.update(peer.figures("inspect"))
            pairs = [them / us for us, them in zip(whole.walls[1:], peer.walls[1:], strict=True)]
            cpu_pairs = [them / us for us, them in zip(whole.cpus[1:], peer.cpus[1:], strict=True)]
            figures["pair_ratios"] = [round(ratio, 2) for ratio in pairs]
            figures["ratio"] = round(statistics.median(pairs), 2)
            figures["cpu_ratio"] = round(statistics.median(cpu_pairs), 2)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
