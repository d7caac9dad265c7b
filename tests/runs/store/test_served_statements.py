"""The statements of task runs served over HTTP (`assay.runs.store.progress`), named like those of
`assay run`'s path and run on the driver's own connection, on both backends: the same parameters
SQLAlchemy would bind, one transaction each, nothing left behind by a failure."""

from __future__ import annotations

import json
import subprocess
import sys

import psycopg
import pytest
from sqlalchemy import Text, cast, select
from sqlalchemy.exc import IntegrityError, OperationalError
from storekit import create_run
from worldkit import ROOT

from assay.runs.store.progress import Progress
from assay.runs.store.tables import task_run_actions


@pytest.fixture
def planned(store, results) -> list[str]:
    """Ids of task runs planned in the store (an action belongs to one)."""
    create_run(store, results[:3])
    return [result.id for result in results[:3]]


def stored_actions(store, task_run_id: str, *, as_text: bool = False) -> list:
    column = cast(task_run_actions.c.action, Text) if as_text else task_run_actions.c.action
    with store.engine.connect() as connection:
        return list(
            connection.execute(
                select(column)
                .where(task_run_actions.c.task_run_id == task_run_id)
                .order_by(task_run_actions.c.seq)
            ).scalars()
        )


def test_a_json_column_is_stored_as_sqlalchemy_reads_it_back(store, planned):
    action = {"call": {"tool": "rename", "args": {"name": "één", "n": [1, 2.5, None]}}}
    assert Progress(store).record_action(planned[0], 0, action)
    assert stored_actions(store, planned[0]) == [action]
    assert Progress(store).actions(planned[0]) == [action]


def test_a_literal_in_the_statement_is_bound_and_a_read_gives_its_row(store, planned):
    progress = Progress(store)
    started, waiting = (progress.task_run(ident) for ident in planned[:2])
    assert started is not None and waiting is not None and started.phase == "created"
    assert progress.start(started) and not progress.start(started)
    # kept only while its task run is in phase 'started', a literal of the statement
    assert progress.record_if_started(planned[0], 0, {"n": 0})
    assert not progress.record_if_started(planned[1], 0, {"n": 0})
    assert not progress.record_if_started(planned[0], 0, {"n": 1})  # that place is taken
    now = progress.task_run(planned[0])
    assert now is not None and (now.phase, now.status, now.actions) == ("started", "active", 1)
    assert progress.started(now.benchmark_run_id) == [planned[0]]
    assert progress.unfinished(now.benchmark_run_id) == planned
    assert progress.task_run(planned[0] + "x") is None


def test_a_failed_transaction_leaves_nothing_and_the_connection_goes_on(store, planned):
    statements = store.statements
    row = {"task_run_id": planned[2], "seq": 0, "action": {}}
    with pytest.raises(IntegrityError), statements.transaction() as transaction:
        transaction.write("RECORD_ACTION", [row, {**row, "seq": 1}])
        transaction.write("RECORD_ACTION", row)  # the same key again
    progress = Progress(store)
    assert progress.record_action(planned[2], 5, {})
    assert not progress.record_action(planned[2], 5, {})
    assert progress.record_action(planned[2], 6, {})
    assert progress.actions(planned[2]) == [{}, {}]


@pytest.mark.parametrize("store", ["postgresql"], indirect=True)  # a server's connection is lost
def test_a_lost_connection_is_given_up_and_the_next_transaction_opens_another(store, planned):
    progress = Progress(store)
    assert progress.count_finished(progress.task_run(planned[0]).benchmark_run_id) == (3, 0)
    pooled = store.engine.raw_connection()  # the one connection the store's pool holds
    backend = pooled.driver_connection.info.backend_pid
    pooled.close()
    admin = store.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute("SELECT pg_terminate_backend(%s)", [backend])
    with pytest.raises(OperationalError):
        progress.task_run(planned[0])
    assert progress.task_run(planned[0]) is not None
    pooled = store.engine.raw_connection()
    assert pooled.driver_connection.info.backend_pid != backend
    pooled.close()


def test_json_is_stored_as_the_text_of_json_dumps(store, planned):
    """An object or a list is given to `json.dumps` itself where SQLAlchemy's processing would
    (SQLite's JSON columns), and SQLAlchemy's own processing elsewhere: the same text both ways,
    which `assay run --json` splices as it is."""
    values = [
        {"call": {"tool": "rename", "args": {"name": 'één \u2028 "q"', "n": [1, 2.5, None, True]}}},
        [{"nested": [[], {}]}, 1e100, -0.0],
        {"say": ""},
    ]
    progress = Progress(store)
    for seq, value in enumerate(values):
        assert progress.record_action(planned[0], seq, value)
    assert stored_actions(store, planned[0], as_text=True) == [json.dumps(v) for v in values]


def test_serving_task_runs_on_an_sqlite_file_imports_no_sqlalchemy(tmp_path):
    """`assay serve` on an SQLite store starts, creates runs and keeps actions without SQLAlchemy
    (its import is a sixth of the server's start)."""
    script = f"""
import sys
from assay.api.serve import open_api
from assay.runs.store.progress import TaskRunRef
app, key = open_api(["worlds/shop"], store={str(tmp_path / "served.db")!r})
progress = app.state.context.progress
store = progress.store
from assay.runs.plan import PlannedRun
store.create_benchmark_run("br_1", world="shop", world_version="1", world_path="w", agent="a",
    repeats=1, planned=[PlannedRun("tr_1", "t", 0)], splits={{"t": "train"}})
progress.set_token("br_1", "hash", "2099-01-01T00:00:00Z")
ref = progress.task_run("tr_1")
assert progress.start(ref) and progress.record_if_started("tr_1", 0, {{"say": "hi"}})
assert progress.run_of_token("hash") == ("br_1", "2099-01-01T00:00:00Z", None)
print(sorted(name for name in sys.modules if name.split(".")[0] == "sqlalchemy"))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.strip() == "[]"
