"""The records store read from the outside, as a test of a finished command sees it."""

from __future__ import annotations

from sqlalchemy import create_engine, text

from assay.runs.plan import PlannedRun, new_id


def query(url: str, sql: str) -> list[tuple]:
    """The rows `sql` returns from the store at `url`, on a connection of its own."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(sql))]
    finally:
        engine.dispose()


def create_run(store, results, *, run_id: str | None = None, scored: bool = False) -> str:
    """A benchmark run of the shop world planning exactly these results' task runs."""
    run_id = run_id or new_id("br")
    store.create_benchmark_run(
        run_id,
        world="shop",
        world_version="1",
        world_path="/worlds/shop",
        agent="reference",
        repeats=1,
        planned=[PlannedRun(r.id, r.task_id, r.repeat) for r in results],
        splits={r.task_id: r.split for r in results},
        scored=scored,
    )
    return run_id
