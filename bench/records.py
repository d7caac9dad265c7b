"""Records figures: task runs stored per second (SQLite, PostgreSQL) and aggregation of 100,000.

Run `python bench/records.py`; it prints one JSON object. Goal (not asserted anywhere): aggregating
100,000 task runs takes ≤ 1 s.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from assay.runs import open_benchmark, prepare, run_benchmark
from assay.runs.aggregate import aggregate
from assay.runs.plan import PlannedRun, new_id
from assay.runs.rows import TaskRow
from assay.runs.store import Store, open_store
from assay.runs.store.batch import BatchWriter

SHOP = Path(__file__).resolve().parents[1] / "worlds" / "shop"
STORED = 1000
POSTGRES = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"
TERMINATIONS = ("finished", "finished", "finished", "max_turns", "timeout", "agent_error")
OUTCOMES = ("verified", "verified", "not_achieved", "rule_violated", "not_scored")
REWARDS = {"verified": 1, "not_achieved": 0, "rule_violated": -1, "not_scored": None}


def shop_results(count: int) -> list:
    """Real results of the example world, copied under new ids up to `count`."""
    benchmark = open_benchmark(SHOP)
    results = run_benchmark(benchmark, "reference", prepare(benchmark, "reference")).task_runs
    return [
        results[index % len(results)].model_copy(
            update={"id": new_id("tr"), "repeat": index // len(results)}
        )
        for index in range(count)
    ]


def planned_run(store: Store, results: list) -> str:
    run_id = new_id("br")
    store.create_benchmark_run(
        run_id,
        world="shop",
        world_version="1",
        world_path=str(SHOP),
        agent="reference",
        repeats=1,
        planned=[PlannedRun(r.id, r.task_id, r.repeat) for r in results],
        splits={r.task_id: r.split for r in results},
    )
    return run_id


def store_rate(store: Store, results: list) -> dict:
    """Task runs saved one transaction each (as the HTTP API stores a completed one), then in
    batches as `assay run` records them (marked started, then finished, through the writer);
    then the aggregation rows read back."""
    run_id = planned_run(store, results)
    started = time.perf_counter()
    for result in results:
        store.save_task_run(run_id, result)
    one_by_one = time.perf_counter() - started
    fresh = [r.model_copy(update={"id": new_id("tr")}) for r in results]
    batched_run = planned_run(store, fresh)
    started = time.perf_counter()
    writer = BatchWriter(store, batched_run)
    for result in fresh:
        writer.started(result.id)
        writer.finished(result)
    writer.close()
    batched = time.perf_counter() - started
    started = time.perf_counter()
    rows = store.task_rows(batched_run)
    reading = time.perf_counter() - started
    assert len(rows) == len(results)
    return {
        "task_runs": len(results),
        "stored_per_s": round(len(results) / one_by_one),
        "batched_per_s": round(len(results) / batched),
        "rows_read_per_s": round(len(rows) / reading),
    }


def sqlite_rate(results: list) -> dict:
    with tempfile.TemporaryDirectory() as directory, open_store(f"{directory}/records.db") as store:
        return store_rate(store, results)


def postgresql_rate(results: list) -> dict | None:
    try:
        import psycopg

        admin = psycopg.connect(POSTGRES, autocommit=True)
    except Exception as error:
        print(f"postgresql skipped: {error}", file=sys.stderr)
        return None
    name = f"assay_bench_{uuid.uuid4().hex[:12]}"
    admin.execute(f'CREATE DATABASE "{name}"')
    try:
        url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
        with open_store(url) as store:
            return store_rate(store, results)
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def synthetic_rows(tasks: int, repeats: int, seed: int = 1) -> list[TaskRow]:
    generator = random.Random(seed)
    rows = []
    for task in range(tasks):
        split = ("train", "dev", "holdout")[task % 3]
        for repeat in range(repeats):
            outcome = generator.choice(OUTCOMES)
            scored = outcome != "not_scored"
            rows.append(
                TaskRow(
                    task_id=f"task-{task:06}",
                    repeat=repeat,
                    split=split,
                    outcome=outcome,
                    reward=REWARDS[outcome],
                    score=generator.random() if scored else None,
                    axes={"correctness": generator.random(), "safety": generator.random()},
                    summary={
                        "false_completion": generator.random() < 0.1,
                        "duplicate_effects": generator.randrange(2),
                        "faults": generator.randrange(2),
                        "recovered": generator.random() < 0.1,
                        "unnecessary_interruptions": 0,
                        "rejected_attempts": generator.randrange(3),
                        "turns": generator.randrange(1, 20),
                        "termination": generator.choice(TERMINATIONS),
                    },
                )
            )
    return rows


def aggregation_s(tasks: int, repeats: int) -> float:
    rows = synthetic_rows(tasks, repeats)
    aggregate(rows[:1000])  # warm imports
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        aggregate(rows)
        timings.append(time.perf_counter() - started)
    return round(statistics.median(timings), 3)


def main() -> None:
    results = shop_results(STORED)
    figures = {
        "store_sqlite": sqlite_rate(results),
        "store_postgresql": postgresql_rate(results),
        "aggregate_100k_s": {
            "10000_tasks_x_10_repeats": aggregation_s(10_000, 10),
            "1000_tasks_x_100_repeats": aggregation_s(1_000, 100),
            "100000_tasks_x_1_repeat": aggregation_s(100_000, 1),
        },
    }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
