"""An act or a complete on a task run this process holds is answered without reading the store
first, yet the store still decides: an action is kept only while the task run is started and holds
no action at that place, a result only while it holds exactly the actions the copy took, and a
copy that another server moved past is rebuilt, not trusted."""

from __future__ import annotations

from apikit import bearer, create
from sqlalchemy import func, insert, select, update

from assay.runs.store.tables import task_run_actions, task_runs

SAY = {"say": "What is your email?"}


def started(api) -> tuple[dict, dict]:
    run = create(api, tasks=["ask-for-email"])
    headers, task_run = bearer(run["bearer_token"]), run["task_runs"][0]
    assert api.post(task_run["start_url"], headers=headers).status_code == 200
    assert api.post(task_run["act_url"], json=SAY, headers=headers).json()["turn"] == 1
    return headers, task_run


def cancelled_elsewhere(api, task_run_id: str) -> None:
    """What another server sharing the store does when it cancels the task run."""
    with api.app.state.context.store.engine.begin() as connection:
        connection.execute(
            update(task_runs)
            .where(task_runs.c.id == task_run_id)
            .values(phase="completed", status="cancelled")
        )


def acted_on_elsewhere(api, task_run_id: str) -> None:
    """What another server sharing the store does when it takes the task run's next action."""
    with api.app.state.context.store.engine.begin() as connection:
        connection.execute(
            insert(task_run_actions).values(task_run_id=task_run_id, seq=1, action=SAY)
        )


def stored_actions(api, task_run_id: str) -> int:
    with api.app.state.context.store.engine.connect() as connection:
        count = select(func.count()).where(task_run_actions.c.task_run_id == task_run_id)
        return connection.execute(count).scalar_one()


def test_an_action_on_a_task_run_finished_elsewhere_is_refused_and_not_kept(api):
    headers, task_run = started(api)
    cancelled_elsewhere(api, task_run["id"])
    refused = api.post(task_run["act_url"], json=SAY, headers=headers)
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "completed")
    assert stored_actions(api, task_run["id"]) == 1


def test_an_action_taken_elsewhere_is_replayed_before_this_one(api):
    headers, task_run = started(api)
    acted_on_elsewhere(api, task_run["id"])
    seen = api.post(task_run["act_url"], json=SAY, headers=headers)
    assert (seen.status_code, seen.json()["turn"]) == (200, 3)
    assert stored_actions(api, task_run["id"]) == 3
    done = api.post(task_run["complete_url"], json={"output": "Asked."}, headers=headers).json()
    assert done["summary"]["turns"] == 4  # three says and the finish


def test_another_runs_token_cannot_act_on_a_held_task_run(api):
    headers, task_run = started(api)
    other = bearer(create(api, tasks=["ask-for-email"])["bearer_token"])
    refused = api.post(task_run["act_url"], json=SAY, headers=other)
    assert (refused.status_code, refused.json()["error"]["code"]) == (404, "not_found")
    assert stored_actions(api, task_run["id"]) == 1
    assert api.post(task_run["act_url"], json=SAY, headers=headers).json()["turn"] == 2


def test_a_task_run_acted_on_elsewhere_is_graded_as_the_store_has_it(api):
    headers, task_run = started(api)
    acted_on_elsewhere(api, task_run["id"])
    done = api.post(task_run["complete_url"], json={"output": "Asked."}, headers=headers).json()
    assert done["summary"]["turns"] == 3  # both says, replayed, and the finish


def test_a_held_task_run_finished_elsewhere_is_not_completed_again(api):
    headers, task_run = started(api)
    cancelled_elsewhere(api, task_run["id"])
    refused = api.post(task_run["complete_url"], json={"output": "Asked."}, headers=headers)
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "completed")
    with api.app.state.context.store.engine.connect() as connection:
        status = select(task_runs.c.status).where(task_runs.c.id == task_run["id"])
        assert connection.execute(status).scalar_one() == "cancelled"
