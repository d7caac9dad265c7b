"""`POST /v1/benchmark-runs` with `verifier_mode`: task or separate; anything else is 422."""

from __future__ import annotations

from pathlib import Path

import pytest
from apikit import OPERATOR, bearer, world_api
from sandboxkit import make_task
from trialkit import note_verifier_modes
from worldkit import SHOP


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The API over a directory of one container-format task, its trials stand-ins that note the
    verifier mode of the task they are made for."""
    tasks = tmp_path / "tasks"
    make_task(tasks, "shared-task", test_sh="exit 0\n", solve_sh=":\n")
    seen = note_verifier_modes(monkeypatch, tmp_path / "logs")
    with world_api(tasks, tmp_path / "api.db") as api:
        yield api, seen


def create(api, **body):
    return api.post("/v1/benchmark-runs", json={"benchmark": "tasks", **body}, headers=OPERATOR)


@pytest.mark.parametrize(
    ("given", "said"),
    [("shared", "shared is refused"), ("seperate", "verifier_mode"), (3, "verifier_mode")],
)
def test_a_bad_verifier_mode_is_422_naming_the_field(served, given, said) -> None:
    api, seen = served
    response = create(api, verifier_mode=given)
    assert response.status_code == 422
    assert seen == []
    error = response.json()["error"]
    assert error["code"] == "invalid_request"
    assert said in error["message"] and "verifier_mode" in error["message"]


def test_separate_on_a_database_world_is_422(tmp_path: Path) -> None:
    with world_api(SHOP, tmp_path / "api.db") as api:
        response = api.post(
            "/v1/benchmark-runs",
            json={"benchmark": "shop@1", "verifier_mode": "separate"},
            headers=OPERATOR,
        )
    assert response.status_code == 422
    assert response.json()["error"]["message"].startswith(
        "verifier_mode: separate is for container-format tasks"
    )


def test_a_separate_run_verifies_every_task_separately_and_says_so(served) -> None:
    api, seen = served
    response = create(api, verifier_mode="separate")
    assert response.status_code == 201, response.text
    run = response.json()
    assert run["verifier_mode"] == "separate"
    headers = bearer(run["bearer_token"])
    (task_run,) = run["task_runs"]
    assert api.post(task_run["start_url"], headers=headers).status_code == 200
    assert seen == ["separate"]
    done = api.post(task_run["complete_url"], json={"output": ""}, headers=headers)
    assert done.status_code == 200, done.text
    viewed = api.get(f"/v1/benchmark-runs/{run['benchmark_run_id']}", headers=OPERATOR).json()
    assert viewed["verifier_mode"] == "separate"


def test_by_default_each_task_keeps_its_own_mode(served) -> None:
    api, seen = served
    run = create(api).json()
    assert run["verifier_mode"] == "task"
    (task_run,) = run["task_runs"]
    api.post(task_run["start_url"], headers=bearer(run["bearer_token"]))
    assert seen == ["shared"]
