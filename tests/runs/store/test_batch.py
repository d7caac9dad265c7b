"""Task runs written in batches: committed by count, by time and at close, each whole, on both
backends; and what a batch that cannot be committed does."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from storekit import create_run as create

from assay.runs.store import open_store
from assay.runs.store.batch import BatchWriter
from assay.runs.store.tables import check_runs, task_runs, trajectories

LONG_S = 600.0  # a wait no test reaches: only the count or closing commits


def phases(store, run_id) -> dict[str, tuple[str, str | None]]:
    """Each task run's phase and start stamp, by id."""
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(task_runs.c.id, task_runs.c.phase, task_runs.c.started_at).where(
                task_runs.c.benchmark_run_id == run_id
            )
        ).all()
    return {row.id: (row.phase, row.started_at) for row in rows}


def completed(store, run_id) -> int:
    return sum(phase == "completed" for phase, _ in phases(store, run_id).values())


def eventually(condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.01)


def test_a_batch_is_committed_when_full_and_the_rest_at_close(store, results):
    run_id = create(store, results)
    writer = BatchWriter(store, run_id, size=4, wait_s=LONG_S)
    for result in results[:4]:
        writer.finished(result)
    eventually(lambda: completed(store, run_id) == 4)
    for result in results[4:6]:
        writer.finished(result)
    time.sleep(0.1)
    assert completed(store, run_id) == 4  # these two wait for a full batch or the close
    writer.close()
    assert completed(store, run_id) == 6
    assert store.results(run_id, trajectories_too=True) == results[:6]


def test_a_batch_is_committed_once_its_first_task_run_has_waited(store, results):
    run_id = create(store, results)
    writer = BatchWriter(store, run_id, size=100, wait_s=0.05)
    writer.finished(results[0])
    eventually(lambda: completed(store, run_id) == 1)
    writer.close()


def test_a_task_run_still_running_is_marked_started_and_one_already_done_needs_no_mark(
    store, results
):
    run_id = create(store, results)
    writer = BatchWriter(store, run_id, size=100, wait_s=0.05)
    writer.started(results[0].id)
    writer.started(results[1].id)
    writer.finished(results[1])  # in the same batch as its start
    eventually(lambda: phases(store, run_id)[results[0].id][0] == "started")
    writer.close()
    shown = phases(store, run_id)
    assert shown[results[1].id] == ("completed", results[1].started_at)
    assert shown[results[2].id] == ("created", None)


def test_the_started_mark_stands_when_the_result_says_a_later_start(store, results):
    """The mark made as it began is when it began, whatever the result says."""
    run_id = create(store, results)
    writer = BatchWriter(store, run_id, size=100, wait_s=0.01)
    writer.started(results[0].id)
    eventually(lambda: phases(store, run_id)[results[0].id][0] == "started")
    marked = phases(store, run_id)[results[0].id][1]
    writer.finished(results[0].model_copy(update={"started_at": "2999-01-01T00:00:00.000000Z"}))
    writer.close()
    assert phases(store, run_id)[results[0].id] == ("completed", marked)


def test_a_task_run_stored_again_replaces_its_check_runs_and_trajectory(store, results):
    run_id = create(store, results[:2])
    for _ in range(2):  # a resumed run stores a not-scored task run again
        writer = BatchWriter(store, run_id, size=100, wait_s=LONG_S)
        for result in results[:2]:
            writer.finished(result)
        writer.close()
    ids = [result.id for result in results[:2]]
    with store.engine.connect() as connection:
        checks = connection.execute(
            select(func.count()).where(check_runs.c.task_run_id.in_(ids))
        ).scalar_one()
        saved = connection.execute(
            select(func.count()).where(trajectories.c.task_run_id.in_(ids))
        ).scalar_one()
    assert checks == sum(len(result.checks) for result in results[:2])
    assert saved == 2
    assert store.results(run_id, trajectories_too=True) == results[:2]


def test_a_batch_that_cannot_be_committed_is_an_error_at_close_and_stores_nothing(store, results):
    run_id = create(store, results[:1])
    writer = BatchWriter(store, run_id, size=100, wait_s=LONG_S)
    writer.finished(results[0])
    writer.finished(results[1])  # not a task run of this run: its check runs have no row to join
    with pytest.raises(IntegrityError):
        writer.close()
    assert completed(store, run_id) == 0  # the batch's transaction was rolled back whole


def test_no_more_than_a_batch_waits_uncommitted_while_the_store_is_busy(tmp_path, results):
    """A crash loses at most `size` task runs: the next one waits until the batch is committed."""
    with open_store(str(tmp_path / "records.db")) as store:
        run_id = create(store, results)
        blocker = sqlite3.connect(tmp_path / "records.db", isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")  # the writer's commit waits for this lock
        writer = BatchWriter(store, run_id, size=2, wait_s=LONG_S)
        feeder = threading.Thread(target=lambda: [writer.finished(r) for r in results[:3]])
        feeder.start()
        feeder.join(timeout=0.3)
        assert feeder.is_alive()  # the third waits: two are not committed yet
        assert completed(store, run_id) == 0
        blocker.execute("ROLLBACK")
        feeder.join(timeout=10)
        assert not feeder.is_alive()
        writer.close()
        blocker.close()
        assert completed(store, run_id) == 3
