"""The records store on SQLite and PostgreSQL: what goes in comes back, whole."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select
from storekit import create_run as create

from assay.runs.aggregate import aggregate
from assay.runs.plan import new_id
from assay.runs.rows import row_of
from assay.runs.store import UnknownRun
from assay.runs.store.tables import check_runs, trajectories


def test_a_run_round_trips(store, results):
    run_id = create(store, results)
    store.start_benchmark_run(run_id)
    for result in results:
        store.save_task_run(run_id, result)
    figures = aggregate([row_of(r) for r in results])
    store.finish_benchmark_run(
        run_id, phase="completed", status="completed", figures=figures.model_dump(mode="json")
    )

    back = store.results(run_id, trajectories_too=True)
    # the same text, keys in the same order: evidence comes back as it was serialised
    assert [json.dumps(r.as_json()) for r in back] == [json.dumps(r.as_json()) for r in results]
    assert all(r.trajectory is None for r in store.results(run_id))
    assert store.task_rows(run_id) == [row_of(r) for r in results]
    assert aggregate(store.task_rows(run_id)) == figures

    record = store.benchmark_run(run_id)
    assert (record.phase, record.status, record.scored) == ("completed", "completed", False)
    assert (record.finished, record.task_runs, record.tasks) == (19, 19, 15)
    assert record.score == pytest.approx(figures.score)
    assert record.verdict == figures.verdict
    assert record.figures == figures.model_dump(mode="json")
    assert record.started_at <= record.finished_at


def test_results_read_back_as_json_are_the_models_json_text_for_text(store, results):
    run_id = create(store, results)
    store.start_benchmark_run(run_id)
    for result in results:
        store.save_task_run(run_id, result)
    as_json = list(store.each_result_text(run_id, page=7))
    through_the_model = store.each_result(run_id, trajectories_too=True)
    assert as_json == [json.dumps(result.as_json()) for result in through_the_model]
    assert as_json == [json.dumps(result.as_json()) for result in results]


def test_result_text_is_not_misled_by_text_that_looks_like_its_keys(store, results):
    tricky = 'a, "output": "b", "checks": [] }'
    result = results[0].model_copy(update={"title": tricky, "output": tricky, "agent": "\u00e9"})
    run_id = create(store, [result])
    store.save_task_run(run_id, result)
    assert list(store.each_result_text(run_id)) == [json.dumps(result.as_json())]


def test_a_judged_check_run_is_still_marked_judged_when_read_back(store, results):
    first = next(result for result in results if len(result.checks) > 1)
    judged = first.model_copy(
        update={"checks": [first.checks[0].model_copy(update={"judged": True}), *first.checks[1:]]}
    )
    run_id = create(store, [judged])
    store.save_task_run(run_id, judged)
    [back] = store.results(run_id)
    assert [check.judged for check in back.checks] == [True] + [False] * (len(back.checks) - 1)
    [text] = store.each_result_text(run_id)
    data = json.loads(text)
    assert [check.get("judged") for check in data["checks"]] == [
        check.as_json().get("judged") for check in back.checks
    ]
    assert data["checks"][0]["judged"] is True


def test_each_check_run_is_a_row_and_each_trajectory_too(store, results):
    run_id = create(store, results[:3])
    for result in results[:3]:
        store.save_task_run(run_id, result)
    with store.engine.connect() as connection:
        for result in results[:3]:
            count = connection.execute(
                select(func.count()).where(check_runs.c.task_run_id == result.id)
            ).scalar_one()
            assert count == len(result.checks) > 0
            trajectory = connection.execute(
                select(trajectories.c.trajectory).where(trajectories.c.task_run_id == result.id)
            ).scalar_one()
            assert trajectory == result.trajectory


def test_phases_and_statuses_through_a_cancel_and_a_resume(store, results):
    first, second = results[:2]
    run_id = create(store, [first, second])
    assert store.benchmark_run(run_id).phase == "created"
    states = store.task_states(run_id)
    assert [(s.phase, s.status) for s in states] == [("created", "active")] * 2

    store.start_benchmark_run(run_id)
    store.save_task_run(run_id, first)
    store.finish_benchmark_run(run_id, phase="cancelled", status="cancelled", figures=None)
    record = store.benchmark_run(run_id)
    assert (record.phase, record.status, record.finished) == ("cancelled", "cancelled", 1)
    states = store.task_states(run_id)
    assert [(s.id, s.phase, s.status) for s in states] == [
        (first.id, "completed", first.status),
        (second.id, "created", "cancelled"),
    ]

    store.start_benchmark_run(run_id)
    record = store.benchmark_run(run_id)
    assert (record.phase, record.status, record.finished_at) == ("started", "active", None)
    assert store.task_states(run_id)[1].status == "active"


def test_saving_a_task_run_again_replaces_it_whole(store, results):
    failed = results[-1]
    assert failed.outcome == "not_scored"
    run_id = create(store, [failed])
    store.save_task_run(run_id, failed)
    redone = results[0].model_copy(update={"id": failed.id, "repeat": failed.repeat})
    store.save_task_run(run_id, redone)
    (back,) = store.results(run_id, trajectories_too=True)
    assert back.as_json() == redone.as_json()
    with store.engine.connect() as connection:
        count = connection.execute(
            select(func.count()).where(check_runs.c.task_run_id == failed.id)
        ).scalar_one()
    assert count == len(redone.checks)


def test_a_result_that_was_not_planned_is_added(store, results):
    run_id = create(store, results[:1])
    store.save_task_run(run_id, results[1])
    assert [s.id for s in store.task_states(run_id)] == [results[0].id, results[1].id]
    assert [r.id for r in store.results(run_id)] == [results[1].id]


def test_results_of_one_task_or_one_task_run(store, results):
    run_id = create(store, results)
    for result in results:
        store.save_task_run(run_id, result)
    of_task = store.results(run_id, task="refund-double-charge")
    assert [r.repeat for r in of_task] == [0, 1, 2]
    one = results[4]
    assert [r.id for r in store.results(run_id, task=one.id)] == [one.id]
    assert store.results(run_id, task="no-such-task") == []


def test_a_run_is_found_by_a_unique_start_of_its_id(store):
    run_id = create(store, [], run_id=new_id("br"))
    assert store.benchmark_run(run_id[:10]).id == run_id
    with pytest.raises(UnknownRun, match=r"^RUN: no benchmark run 'br_nothing' in "):
        store.benchmark_run("br_nothing")
    with pytest.raises(UnknownRun, match=r"^--resume: no benchmark run 'x%' in "):
        store.benchmark_run("x%", parameter="--resume")


def test_an_ambiguous_start_is_refused_but_a_whole_id_is_not(store):
    prefix = new_id("br")
    for suffix in ("1", "10", "11", "12"):
        create(store, [], run_id=prefix + suffix)
    with pytest.raises(UnknownRun, match=f"'{prefix}' matches several benchmark runs; give more"):
        store.benchmark_run(prefix)
    assert store.benchmark_run(prefix + "1").id == prefix + "1"


def test_recent_runs_come_newest_first_with_their_finished_counts(store, results):
    older = create(store, results[:2])
    store.save_task_run(older, results[0])
    newer = create(store, results[2:3])
    listed = [r for r in store.recent(1000) if r.id in (older, newer)]
    assert [(r.id, r.finished, r.task_runs) for r in listed] == [(newer, 0, 1), (older, 1, 2)]
    assert len(store.recent(1)) == 1


def test_latest_validation_per_task_and_hash(store):
    world = new_id("world")
    store.save_validation(world, "1", "a", "h1", False, {"task": "a", "try": 1})
    store.save_validation(world, "1", "a", "h1", True, {"task": "a", "try": 2})
    store.save_validation(world, "1", "a", "h2", True, {"task": "a", "try": 3})
    store.save_validation(world, "1", "b", "h1", True, {"task": "b", "try": 1})
    store.save_validation(world, "2", "a", "h1", False, {"task": "a", "version": 2})
    found = store.latest_validations(world, "1")
    assert [(e["task_id"], e["task_hash"], e["passed"], e["record"]) for e in found] == [
        ("a", "h1", True, {"task": "a", "try": 2}),
        ("a", "h2", True, {"task": "a", "try": 3}),
        ("b", "h1", True, {"task": "b", "try": 1}),
    ]
    assert all(entry["validated_at"].endswith("Z") for entry in found)
    assert [e["record"] for e in store.latest_validations(world, "2")] == [
        {"task": "a", "version": 2}
    ]
    assert store.latest_validations(world, "3") == []
