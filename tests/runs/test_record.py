"""Benchmark runs kept in the store: recorded as they run, cancelled, failed, resumed, read back."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import OperationalError

from assay.errors import UsageError
from assay.runs import SerialExecutor, prepare
from assay.runs.aggregate import aggregate
from assay.runs.record import continue_run, load_outcome, record_run, resume_plan
from assay.runs.rows import row_of
from assay.runs.store import open_store
from assay.runs.store.tables import task_runs

TASKS = ("refund-double-charge", "email-tracking", "update-address")


class StopAfter:
    """Runs `count` task runs one by one, begins `begun` more, then raises as if the user pressed
    Ctrl-C (or a bug struck) while those were in flight."""

    def __init__(
        self, count: int, error: type[BaseException] = KeyboardInterrupt, *, begun: int = 0
    ):
        self.count = count
        self.error = error
        self.begun = begun

    def execute(self, benchmark, agent, planned, on_result, on_start):
        SerialExecutor().execute(benchmark, agent, planned[: self.count], on_result, on_start)
        for run in planned[self.count : self.count + self.begun]:
            on_start(run)
        raise self.error("stopped")


def stamps(store, run_id):
    """(phase, started_at, finished_at) of each task run of the run, in planned order."""
    with store.engine.connect() as connection:
        return connection.execute(
            select(task_runs.c.phase, task_runs.c.started_at, task_runs.c.finished_at)
            .where(task_runs.c.benchmark_run_id == run_id)
            .order_by(task_runs.c.position)
        ).all()


@pytest.fixture(scope="module")
def benchmark(shop):
    return shop


@pytest.fixture
def store(tmp_path):
    with open_store(str(tmp_path / "records.db")) as opened:
        yield opened


def test_a_recorded_run_lands_whole_in_the_store(store, benchmark):
    planned = prepare(benchmark, "reference", TASKS, repeats=2)
    outcome = record_run(store, benchmark, "reference", planned, repeats=2)
    run = outcome.benchmark_run
    assert (run.phase, run.status, run.task_runs, run.tasks, run.repeats) == (
        "completed",
        "completed",
        6,
        3,
        2,
    )
    assert [(r.task_id, r.repeat) for r in outcome.task_runs] == [
        (p.task_id, p.repeat) for p in planned
    ]
    assert all(r.trajectory is not None for r in outcome.task_runs)
    figures = aggregate([row_of(r) for r in outcome.task_runs])
    assert run.model_dump(include=set(type(figures).model_fields)) == figures.model_dump()
    record = store.benchmark_run(run.id)
    assert record.world_path == str(benchmark.world.root.resolve())
    assert record.figures == figures.model_dump(mode="json")
    assert load_outcome(store, run.id).benchmark_run == run


def test_ctrl_c_cancels_the_run_and_keeps_finished_task_runs(store, benchmark):
    planned = prepare(benchmark, "reference", TASKS, repeats=2)
    outcome = record_run(store, benchmark, "reference", planned, executor=StopAfter(4))
    run = outcome.benchmark_run
    assert (run.phase, run.status) == ("cancelled", "cancelled")
    assert len(outcome.task_runs) == 4
    assert run.scored + run.not_scored == 4
    states = store.task_states(run.id)
    assert [s.phase for s in states] == ["completed"] * 4 + ["created"] * 2
    assert [s.status for s in states[4:]] == ["cancelled", "cancelled"]


def test_each_task_run_is_started_as_it_begins_and_completed_as_it_ends(store, benchmark):
    planned = prepare(benchmark, "reference", TASKS, repeats=2)
    run_id = record_run(store, benchmark, "reference", planned).benchmark_run.id
    rows = stamps(store, run_id)
    assert [phase for phase, _, _ in rows] == ["completed"] * 6
    assert all(started is not None and started <= finished for _, started, finished in rows)


def test_a_task_run_in_flight_when_stopped_stays_started(store, benchmark):
    planned = prepare(benchmark, "reference", TASKS, repeats=2)
    outcome = record_run(store, benchmark, "reference", planned, executor=StopAfter(3, begun=1))
    states = store.task_states(outcome.benchmark_run.id)
    assert [s.phase for s in states] == ["completed"] * 3 + ["started"] + ["created"] * 2
    assert [s.status for s in states[3:]] == ["cancelled"] * 3
    rows = stamps(store, outcome.benchmark_run.id)
    assert [(started is None, finished is None) for _, started, finished in rows[3:]] == [
        (False, True),
        (True, True),
        (True, True),
    ]
    assert len(outcome.task_runs) == 3


def test_a_crash_marks_the_run_failed_and_lets_the_error_through(store, benchmark):
    planned = prepare(benchmark, "reference", TASKS)
    with pytest.raises(RuntimeError, match="stopped"):
        record_run(store, benchmark, "reference", planned, executor=StopAfter(1, RuntimeError))
    (record,) = store.recent(1)
    assert (record.phase, record.status, record.finished) == ("cancelled", "failed", 1)


def test_resume_runs_only_what_is_missing_or_not_scored(store, benchmark):
    planned = prepare(benchmark, "reference", TASKS, repeats=2)
    first = record_run(store, benchmark, "reference", planned, executor=StopAfter(3, begun=2))
    run_id = first.benchmark_run.id
    assert [s.phase for s in store.task_states(run_id)][3:] == ["started", "started", "created"]
    failed = first.task_runs[1].model_copy(
        update={"outcome": "not_scored", "reward": None, "score": None, "status": "failed"}
    )
    store.save_task_run(run_id, failed)
    kept = {r.id: r.as_json() for r in store.results(run_id, trajectories_too=True)}

    redo = resume_plan(store, benchmark, store.benchmark_run(run_id))
    assert [p.id for p in redo] == [failed.id] + [p.id for p in planned[3:]]

    done = continue_run(store, benchmark, run_id, "reference", redo)
    assert (done.benchmark_run.phase, done.benchmark_run.status) == ("completed", "completed")
    assert [r.id for r in done.task_runs] == [p.id for p in planned]
    assert done.benchmark_run.outcomes["not_scored"] == 0
    for result in done.task_runs:
        if result.id in kept and result.id != failed.id:
            assert result.as_json() == kept[result.id]
    [again] = [result for result in done.task_runs if result.id == failed.id]
    assert len(again.checks) == len(failed.checks)  # the earlier check runs were replaced
    assert resume_plan(store, benchmark, store.benchmark_run(run_id)) == []


def test_resume_refuses_another_world_version(store, benchmark, tmp_path):
    planned = prepare(benchmark, "reference", TASKS[:1])
    run_id = record_run(store, benchmark, "reference", planned).benchmark_run.id
    store.engine.dispose()
    with sqlite3.connect(tmp_path / "records.db") as connection:
        connection.execute("UPDATE benchmark_runs SET world_version = '0'")
    with pytest.raises(UsageError) as refused:
        resume_plan(store, benchmark, store.benchmark_run(run_id))
    assert str(refused.value) == f"--resume: run {run_id} is of world shop@0, not shop@1"


def test_a_scored_run_hides_details_and_evidence_unless_revealed(store, benchmark):
    planned = prepare(benchmark, "reference", TASKS[:1])
    run_id = record_run(store, benchmark, "reference", planned, scored=True).benchmark_run.id
    hidden = load_outcome(store, run_id)
    assert hidden.benchmark_run.scored_run is True
    checks = hidden.task_runs[0].checks
    assert checks
    assert all(c.details is None and c.evidence is None for c in checks)
    assert all(c.score is not None for c in checks)
    revealed = load_outcome(store, run_id, reveal=True)
    assert all(c.details and c.evidence for c in revealed.task_runs[0].checks)


def test_an_unscored_run_shows_everything(store, benchmark):
    planned = prepare(benchmark, "reference", TASKS[:1])
    run_id = record_run(store, benchmark, "reference", planned).benchmark_run.id
    assert all(c.details and c.evidence for c in load_outcome(store, run_id).task_runs[0].checks)


def test_a_run_read_back_a_page_at_a_time_equals_it_read_whole(store, benchmark):
    planned = prepare(benchmark, "reference", TASKS, repeats=2)
    outcome = record_run(store, benchmark, "reference", planned, results=False)
    assert outcome.task_runs == []  # nothing held in memory
    assert outcome.benchmark_run.task_runs == len(planned)
    paged = list(store.each_result(outcome.benchmark_run.id, trajectories_too=True, page=4))
    whole = store.results(outcome.benchmark_run.id, trajectories_too=True)
    assert [result.id for result in paged] == [run.id for run in planned]
    assert paged == whole
    assert all(result.trajectory for result in paged)


def test_a_batch_the_store_refuses_fails_the_run_and_keeps_none_of_it(store, benchmark):
    planned = prepare(benchmark, "reference", TASKS, repeats=2)
    with store.engine.begin() as connection:
        connection.execute(text("DROP TABLE trajectories"))
    with pytest.raises(OperationalError, match="trajectories"):
        record_run(store, benchmark, "reference", planned)
    (record,) = store.recent(1)
    assert (record.phase, record.status, record.finished) == ("cancelled", "failed", 0)
