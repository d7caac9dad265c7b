"""A served task run's result stored as it completes (`Progress.save_completed`): whole, once, and
only into the run that planned it."""

from __future__ import annotations

from storekit import create_run

from assay.runs.store.progress import Progress


def test_a_completed_task_run_is_stored_whole_once(store, results):
    run_id = create_run(store, results[:2])
    progress = Progress(store)
    result = results[0]
    ids = progress.save_completed(run_id, result)
    assert ids is not None and len(ids) == len(result.checks)
    assert progress.save_completed(run_id, result) is None  # another server completed it first
    [stored] = store.results(run_id, task=result.id, trajectories_too=True)
    assert stored.model_dump(exclude={"trajectory"}) == result.model_dump(exclude={"trajectory"})
    assert stored.trajectory == result.trajectory
    assert [check.id for check in progress.check_runs(result.id, -1, 100)] == ids
    assert progress.count_finished(run_id) == (2, 1)


def test_a_result_for_another_runs_task_run_is_not_stored(store, results):
    run_id = create_run(store, results[:1])
    other = create_run(store, results[1:2])
    progress = Progress(store)
    assert progress.save_completed(other, results[0]) is None
    assert progress.count_finished(run_id) == (1, 0)
