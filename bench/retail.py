"""Speed on a retail-shaped world (`bench/retail_world.py`): whole process, per check, load, start.

Run `python bench/retail.py` (or `make bench`); it prints one JSON object. The world is generated
into a temporary directory, the same every time. Each figure is the median of `--rounds` runs:
- `whole_process`: `assay run WORLD --agent reference --repeats 10 --workers 1 --json`, a process
  of its own: milliseconds per task run and peak RSS (MiB).
- `check_us`: a key-lookup SQL check in process, each task's checks on a locked copy as task runs
  get one (`assay.verify.run_checks`), microseconds per check.
- `changes_ms`: the state diff and the final-state hash together, as a task run ends (its copy
  locked, after the reference solution's tool calls), in process: thread CPU milliseconds per task
  run.
- `load_ms`: `open_benchmark` of the world in a new process on a second run (caches filled).
- `shop_default_s` / `shop_serial_s`: `assay run worlds/shop --agent reference` with the default
  executor and with `--workers 1`, and their ratio.
- `crossover`: 103 to 1,030 task runs with `--workers 1` and with one worker per core.
Goals (never asserted): ≤ 5 ms per task run, ≤ 300 MiB, a check ≤ 30 µs, load ≤ 50 ms, ratio ≤ 1.2.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from retail_world import TASKS, write_world

ASSAY = str(Path(sys.executable).parent / "assay")
SHOP = Path(__file__).parent.parent / "worlds" / "shop"


def timed_process(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one process; its failure ends the benchmark."""
    started = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.PIPE, env=env)
        _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"{command[:3]} failed: {process.stderr.read().decode()[-2000:]}")
    return elapsed, usage.ru_maxrss / 1024


def whole_process(root: Path, scratch: Path, env: dict[str, str], rounds: int) -> dict:
    """Milliseconds per task run and peak RSS of `--repeats 10 --workers 1`, medians."""
    runs, peaks = [], []
    for number in range(rounds):
        store = scratch / f"records-{number}.db"
        command = [ASSAY, "run", str(root), "--agent", "reference", "--repeats", "10"]
        command += ["--workers", "1", "--json", "--store", str(store)]
        seconds, peak = timed_process(command, env)
        runs.append(seconds / (TASKS * 10) * 1000)
        peaks.append(peak)
    return {
        "task_runs": TASKS * 10,
        "ms_per_task_run": round(statistics.median(runs), 2),
        "ms_range": [round(min(runs), 2), round(max(runs), 2)],
        "peak_mib": round(statistics.median(peaks), 1),
    }


CHECK_PROBE = """
import statistics, sys, time
from assay.runs import open_benchmark
from assay.verify import VerifyContext, run_checks
from assay.verify.views import ReadView
benchmark = open_benchmark(sys.argv[1])
world = benchmark.world
rounds = []
for _ in range(5):
    spent = checks = 0
    for task in benchmark.tasks.values():
        live = world.reset()  # a copy as a task run gets it: used again, rolled back
        live.freeze()
        view = ReadView(live.db, 5.0)
        context = VerifyContext(
            task=task,
            final=view,
            initial=ReadView(world.initial, 5.0),
            agent_output="",
            request="",
            world_run=live.run,
        )
        started = time.perf_counter()
        runs = run_checks(context, benchmark.verifiers)
        spent += time.perf_counter() - started
        checks += len(runs)
        live.close()
    rounds.append(spent / checks * 1e6)
print(statistics.median(rounds))
"""

CHANGES_PROBE = """
import statistics, sys, time
from assay.rl.episode import Episode
from assay.runs import open_benchmark
from assay.world.diff import state_changes
benchmark = open_benchmark(sys.argv[1])
world = benchmark.world
rounds = []
for number in range(5):
    spent = 0.0
    for task in benchmark.tasks.values():
        episode = Episode(benchmark, task, run_id=f"tr_{number}_{task.id}")
        for step in task.solution.steps:
            if step.call is not None:
                episode.act({"call": {"tool": step.call, "args": step.args}})
        live = episode.session.live
        live.freeze()  # as grading locks it
        db = live.db
        columns = world.snapshot.columns
        tables = {t: columns[t] for t in world.snapshot.digests if db.may_have_changed(t.lower())}
        started = time.thread_time()
        state_changes(world.initial, db, tables)
        db.state_hash()
        spent += time.thread_time() - started
        episode.close()
    rounds.append(spent / len(benchmark.tasks) * 1000)
print(statistics.median(rounds))
"""

LOAD_PROBE = """
import sys, time
from assay.runs import open_benchmark
started = time.perf_counter()
open_benchmark(sys.argv[1])
print((time.perf_counter() - started) * 1000)
"""


def probe(code: str, root: Path, env: dict[str, str], rounds: int, digits: int = 2) -> float:
    """The median of what `code` prints, each round a new process."""
    figures = []
    for _ in range(rounds):
        output = subprocess.run(
            [sys.executable, "-c", code, str(root)], env=env, check=True, capture_output=True
        )
        figures.append(float(output.stdout.decode().split()[-1]))
    return round(statistics.median(figures), digits)


def shop_start(scratch: Path, env: dict[str, str], rounds: int) -> dict:
    """The default `assay run worlds/shop --agent reference` against `--workers 1`, medians."""
    default, serial = [], []
    for number in range(rounds):
        base = [ASSAY, "run", str(SHOP), "--agent", "reference", "--json"]
        default.append(timed_process([*base, "--store", str(scratch / f"d{number}.db")], env)[0])
        serial_store = str(scratch / f"s{number}.db")
        serial.append(timed_process([*base, "--workers", "1", "--store", serial_store], env)[0])
    default_s, serial_s = statistics.median(default), statistics.median(serial)
    return {
        "shop_default_s": round(default_s, 2),
        "shop_serial_s": round(serial_s, 2),
        "ratio": round(default_s / serial_s, 2),
    }


def crossover(root: Path, scratch: Path, env: dict[str, str], rounds: int) -> list[dict]:
    """Seconds for 1, 3, 6 and 10 repeats of every task with one process and with a pool of one
    worker per core (`--workers N`), medians: where the pool starts to pay for its start-up."""
    cores = str(os.cpu_count() or 1)
    found = []
    for repeats in (1, 3, 6, 10):
        seconds: dict[str, list[float]] = {"1": [], cores: []}
        for number in range(rounds):
            for workers in seconds:
                store = str(scratch / f"x{repeats}-{workers}-{number}.db")
                command = [ASSAY, "run", str(root), "--agent", "reference", "--json"]
                command += ["--repeats", str(repeats), "--workers", workers, "--store", store]
                seconds[workers].append(timed_process(command, env)[0])
        found.append(
            {
                "task_runs": TASKS * repeats,
                "serial_s": round(statistics.median(seconds["1"]), 2),
                f"pool_{cores}_s": round(statistics.median(seconds[cores]), 2),
            }
        )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--only",
        choices=["whole", "check", "changes", "load", "shop", "crossover"],
        action="append",
    )
    arguments = parser.parse_args()
    parts = arguments.only or ["whole", "check", "changes", "load", "shop", "crossover"]
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        env = {**os.environ, "ASSAY_HOME": str(scratch / "home")}
        root = write_world(scratch / "retail")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH")]))
        subprocess.run(  # builds the snapshot and keeps the proofs: every figure is a later run
            [ASSAY, "run", str(root), "--agent", "reference", "--workers", "1", "--json",
             "--store", str(scratch / "warm.db")],
            env=env, check=True, capture_output=True,
        )  # fmt: skip
        from assay.runs import open_benchmark

        os.environ["ASSAY_HOME"] = env["ASSAY_HOME"]
        size_mb = len(open_benchmark(root).world.snapshot.image) / 1024 / 1024
        figures: dict = {"world": {"size_mb": round(size_mb, 2), "tasks": TASKS}}
        if "whole" in parts:
            figures["whole_process"] = whole_process(root, scratch, env, arguments.rounds)
        if "check" in parts:
            figures["check_us"] = probe(CHECK_PROBE, root, env, arguments.rounds)
        if "changes" in parts:
            figures["changes_ms"] = probe(CHANGES_PROBE, root, env, arguments.rounds, digits=3)
        if "load" in parts:
            figures["load_ms"] = probe(LOAD_PROBE, root, env, arguments.rounds)
        if "shop" in parts:
            figures.update(shop_start(scratch, env, arguments.rounds))
        if "crossover" in parts:
            figures["crossover"] = crossover(root, scratch, env, arguments.rounds)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
