"""A check keeps its limits on both backends: time, a value's size, memory, rows and columns."""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from worldkit import DESK_WORLD, write_world

from assay.sdk import TaskRun
from assay.world import limits
from assay.world.guard import QueryLimit


def _run(tmp_path, open_world, sql: str, timeout_s: float = 2.0):
    """The result of a task whose one check runs `sql` (wanting 1), after no calls."""
    world_toml = DESK_WORLD.replace(
        'version = "1"', f'version = "1"\ncheck_timeout_s = {timeout_s}'
    )
    task = f'title = "t"\nrole = "desk"\n[customer]\nrequest = "r"\n[[checks]]\nname = "c"\nsql = "{sql}"\nexpect = 1\n'
    root = write_world(tmp_path, world_toml=world_toml, tasks={"t": task})
    with TaskRun(open_world(root), "t") as run:
        return run.finish("")


def _count_to(n: int, select: str) -> str:
    return f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n}) {select}"


def test_a_million_rows_fail_the_check_on_both_backends_and_cost_nothing(tmp_path, open_world):
    started = time.monotonic()
    result = _run(tmp_path, open_world, _count_to(1_000_000, "SELECT i FROM n"))
    assert time.monotonic() - started < 5  # two rows are fetched, not a million
    assert result.outcome == "not_achieved"
    assert result.checks[0].details == (
        "the query returned more than one row; a check needs exactly one row of one column"
    )


# SQLite returns 2,000 columns; PostgreSQL stops at 1,664: either way the author asked for too much.
MANY_COLUMNS = {
    "sqlite": "the query returned 2000 columns (c1, c2,",
    "postgresql": "the query was stopped: target lists can have at most 1664 entries",
}


def test_two_thousand_columns_fail_the_check_on_both_backends(tmp_path, open_world, backend):
    columns = ", ".join(f"1 AS c{i}" for i in range(1, 2001))
    result = _run(tmp_path, open_world, f"SELECT {columns}")
    assert result.outcome == "not_achieved"
    assert result.checks[0].passed is False
    assert result.checks[0].details.startswith(MANY_COLUMNS[backend])


# Eight calls that each make a huge value: SQLite refuses the value, PostgreSQL stops it in time.
HEAVY = {
    "sqlite": " + ".join(["length(hex(zeroblob(400000000)))"] * 8),
    "postgresql": " + ".join(["length(repeat('x', 400000000))"] * 8),
}
HEAVY_STOPPED = {
    "sqlite": "the query was stopped: a value passed the 16 MB limit",
    "postgresql": "the query was stopped after 0.5s",
}


def test_a_few_very_heavy_calls_are_stopped_quickly_and_small(tmp_path, open_world, backend):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.monotonic()
    result = _run(tmp_path, open_world, f"SELECT {HEAVY[backend]}", timeout_s=0.5)
    assert time.monotonic() - started < 5  # it ran 40 s against a 2 s limit
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 500  # it reached 10.2 GB
    assert result.outcome == "not_achieved"
    assert result.checks[0].details == HEAVY_STOPPED[backend]


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # PostgreSQL: tests/world/postgres
def test_a_slow_loop_is_interrupted_at_the_deadline_not_thousands_of_steps_later(
    tmp_path, open_world, backend
):
    """Each row costs milliseconds in a few steps: a step-counting handler would fire far too late."""
    heavy_rows = _count_to(100_000, "SELECT sum(length(hex(zeroblob(7000000 + i % 2)))) FROM n")
    started = time.monotonic()
    result = _run(tmp_path, open_world, heavy_rows, 0.3)
    assert time.monotonic() - started < 2
    assert result.checks[0].details == "the query was stopped after 0.3s"


HEAP_PROBE = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from worldkit import write_world
from assay.world import limits, load_world
from assay.world.guard import QueryLimit
limits.HEAP_CEILING = 20 << 20
live = load_world(write_world(Path(sys.argv[1]))).reset()
live.freeze()
try:
    live.db.run_limited(2, "SELECT length(hex(zeroblob(7000000) || zeroblob(1)))", {})
except QueryLimit as stopped:
    print(stopped)
print(live.db.run_limited(2, "SELECT count(*) FROM notes", {})[1])
"""


def test_sqlite_heap_is_capped_once_a_copy_is_locked(tmp_path):
    """In a process of its own: the cap is process-wide and can only be lowered."""
    tests = Path(__file__).parents[1]
    probe = [sys.executable, "-c", HEAP_PROBE, str(tmp_path / "w"), str(tests)]
    done = subprocess.run(probe, capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.splitlines() == [
        "stopped: SQLite ran out of the memory this process may use",
        "[(2,)]",
    ]
    assert limits.HEAP_CEILING == 2 << 30


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_a_check_on_postgresql_sorts_within_its_own_work_mem(tmp_path, open_world, backend):
    result = _run(tmp_path, open_world, "SELECT current_setting('work_mem')")
    assert result.checks[0].evidence["actual"] == "4MB"


# SQLite caps each string or blob; PostgreSQL measures each row before it leaves the server.
TOO_BIG = {
    "sqlite": r"^stopped: a value passed the 16 MB limit$",
    "postgresql": r"^stopped: a row passed the 16 MB limit$",
}


def test_a_value_past_the_cap_stops_the_read_but_not_the_state_hash(reset, any_shop, backend):
    live = reset(any_shop.world)
    live.db.execute("UPDATE orders SET address = ? WHERE id = 'A-1042'", "x" * (17 << 20))
    live.freeze()
    assert len(live.db.state_hash()) == 64
    with pytest.raises(QueryLimit, match=TOO_BIG[backend]):
        live.db.run_limited(2.0, "SELECT address FROM orders WHERE id = 'A-1042'", {})
    assert live.db.run_limited(2.0, "SELECT count(*) FROM orders", {})[1] == [(10,)]
