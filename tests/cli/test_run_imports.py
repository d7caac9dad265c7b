"""`assay run` of one task imports only what that run needs: no sqlglot once the world's proofs
are kept, no Rich for --json, no container-format loading for a database world, no SQLAlchemy for
a store in an SQLite file (fresh or resumed), no process pool for one worker."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from assay.runs import open_benchmark, prepare
from assay.runs.record import record_run
from assay.runs.store import open_store
from assay.world import loadable as loading

SHOP = Path(__file__).resolve().parents[2] / "worlds" / "shop"
NOT_NEEDED = (
    *("sqlglot", "rich", "assay.world.container", "assay.trust.validate", "alembic"),
    "sqlalchemy",
    "multiprocessing",  # the process pool, for more than one worker
)


def run_script(arguments: list[str]) -> str:
    """`assay …arguments` in a process of its own, then the modules it had no need of printed."""
    return (
        "import sys\n"
        "from assay.cli.app import run_app\n"
        f"sys.argv = ['assay', *{arguments!r}]\n"
        "try:\n"
        "    run_app()\n"
        "except SystemExit as done:\n"
        "    assert not done.code, done.code\n"
        f"print(sorted(name for name in {NOT_NEEDED!r} if name in sys.modules), file=sys.stderr)\n"
    )


def imported_needlessly(arguments: list[str], cwd: Path) -> tuple[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", run_script(arguments)],
        cwd=cwd,
        env=os.environ,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr.splitlines()[-1]


def test_a_json_run_of_a_proved_world_imports_nothing_it_does_not_need(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(loading, "_proved", set())
    open_benchmark(SHOP).close()  # proves the world and keeps the proofs, as a first run would
    store = str(tmp_path / "runs.db")
    arguments = ["run", str(SHOP), "--task", "update-address", "--json", "--store", store]
    out, needless = imported_needlessly(arguments, tmp_path)
    assert '"outcome": "verified"' in out
    assert needless == "[]"


def test_a_resumed_json_run_imports_nothing_it_does_not_need(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(loading, "_proved", set())
    store = str(tmp_path / "runs.db")
    with open_store(store) as records:  # a run stopped before its last task run finished
        benchmark = open_benchmark(SHOP)
        planned = prepare(benchmark, "reference", ["update-address"], repeats=2)
        run_id = record_run(records, benchmark, "reference", planned).benchmark_run.id
        benchmark.close()
    with sqlite3.connect(store) as connection:
        connection.execute("UPDATE task_runs SET phase = 'started' WHERE position = 1")
    out, needless = imported_needlessly(
        ["run", "--resume", run_id, "--json", "--store", store], tmp_path
    )
    assert out.count('"outcome": "verified"') == 2
    assert needless == "[]"
