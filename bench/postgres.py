"""PostgreSQL reset time, and task runs per second with one and two worker processes; prints JSON.

    python bench/postgres.py [--url postgresql://postgres@127.0.0.1:5432/postgres]

Reset = CREATE DATABASE … TEMPLATE, connect, drop: what every task run on PostgreSQL pays.
Final-state hash = after three one-row updates on a ~10 MB world: from the changed rows, and
with every written table read whole (what it was before the change triggers).
Throughput is on SQLite, the shop world's reference solutions, including the pool's start-up.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHOP = ROOT / "worlds" / "shop"


def big_world(directory: Path, megabytes: int) -> Path:
    """A world whose seed data is about `megabytes` MB (rows of ~100 bytes)."""
    root = directory / "big"
    root.mkdir()
    (root / "world.toml").write_text(
        'name = "big"\nversion = "1"\n[database]\nschema = "schema.sql"\nseed = ["items.csv"]\n'
    )
    (root / "schema.sql").write_text(
        "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, cents INTEGER NOT NULL);"
    )
    rows = megabytes * 10_000
    lines = ["id,name,cents"] + [
        f"{i},item-{i:08d}-{'x' * 80},{i % 9973}" for i in range(1, rows + 1)
    ]
    (root / "items.csv").write_text("\n".join(lines) + "\n")
    return root


def reset_seconds(root: Path, url: str, times: int) -> dict[str, float]:
    from assay.world.load import load_world

    world = load_world(root, url)
    started = time.perf_counter()
    _ = world.snapshot
    built = time.perf_counter() - started
    backend = world.backend
    samples = []
    for _ in range(times):
        started = time.perf_counter()
        copy = backend.open_copy()
        copy.value("SELECT 1")
        backend.drop(copy)
        samples.append(time.perf_counter() - started)
    return {
        "template_build_s": round(built, 4),
        "reset_median_ms": round(statistics.median(samples) * 1000, 2),
        "reset_min_ms": round(min(samples) * 1000, 2),
    }


def hash_ms(root: Path, url: str, times: int) -> dict[str, float]:
    from assay.world.load import load_world

    backend = load_world(root, url).backend
    writes, updated, whole = [], [], []
    for _ in range(times):
        copy = backend.open_copy()
        for item in (11, 2222, 33333):
            started = time.perf_counter()
            copy.execute("UPDATE items SET cents = cents + 1 WHERE id = ?", item)
            writes.append(time.perf_counter() - started)
        copy.lock_readonly()
        for samples, full in ((updated, False), (whole, True)):
            started = time.perf_counter()
            copy.state_hash(full=full)
            samples.append(time.perf_counter() - started)
        backend.drop(copy)
    return {
        "one_row_update_ms": round(statistics.median(writes) * 1000, 3),
        "hash_from_changes_ms": round(statistics.median(updated) * 1000, 3),
        "hash_reading_tables_whole_ms": round(statistics.median(whole) * 1000, 2),
    }


LATENCY_AGENT = f"{Path(__file__).parent / 'latency_agent.py'}:LatencyAgent"


def runs_per_second(
    workers: int, repeats: int, world_db: str | None = None, agent: str = "reference"
) -> dict[str, float]:
    from assay.runs import ProcessExecutor, SerialExecutor, open_benchmark, prepare, run_benchmark

    benchmark = open_benchmark(SHOP, world_db=world_db)
    planned = prepare(benchmark, agent, repeats=repeats)
    executor = ProcessExecutor(workers) if workers > 1 else SerialExecutor()
    started = time.perf_counter()
    outcome = run_benchmark(benchmark, agent, planned, repeats=repeats, executor=executor)
    elapsed = time.perf_counter() - started
    assert len(outcome.task_runs) == len(planned)
    return {
        "task_runs": len(planned),
        "seconds": round(elapsed, 3),
        "per_second": round(len(planned) / elapsed, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--resets", type=int, default=20)
    parser.add_argument(
        "--repeats", type=int, default=40, help="repeats of each shop task (SQLite)"
    )
    args = parser.parse_args()
    os.environ["ASSAY_WORLD_DB_PREFIX"] = f"assaybench{uuid.uuid4().hex[:8]}"
    os.environ.setdefault("ASSAY_HOME", tempfile.mkdtemp(prefix="assay-bench-"))
    from assay.world.postgres.server import Server

    server = Server(args.url, os.environ["ASSAY_WORLD_DB_PREFIX"], RuntimeError)
    report: dict[str, object] = {"python": sys.version.split()[0], "cpus": os.cpu_count()}
    try:
        report["postgres_reset_shop"] = reset_seconds(SHOP, args.url, args.resets)
        with tempfile.TemporaryDirectory() as directory:
            big = big_world(Path(directory), 10)
            report["postgres_reset_10mb"] = reset_seconds(big, args.url, args.resets)
            report["postgres_hash_10mb"] = hash_ms(big, args.url, args.resets)
        report["sqlite_workers_1"] = runs_per_second(1, args.repeats)
        report["sqlite_workers_2"] = runs_per_second(2, args.repeats)
        report["sqlite_20ms_agent_workers_1"] = runs_per_second(1, 20, agent=LATENCY_AGENT)
        report["sqlite_20ms_agent_workers_2"] = runs_per_second(2, 20, agent=LATENCY_AGENT)
        report["postgres_workers_1"] = runs_per_second(1, 2, args.url)
        report["postgres_workers_2"] = runs_per_second(2, 2, args.url)
    finally:
        server.drop_everything()
        server.close()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
