"""Keys with scopes on every endpoint: what each scope may do (allowed), may not (403), and may not
even learn exists (404); holdout details reach nobody but the admin, holdout episodes nobody."""

from __future__ import annotations

import time
import warnings

import pytest
from apikit import OPERATOR, OPERATOR_KEY, bearer, every_endpoint
from worldkit import SHOP

from assay.api import open_api
from assay.runs.keys import create_key
from assay.runs.store import open_store

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

HOLDOUT = "damaged-order-refund"
DEV = "ask-for-email"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """The API over the shop, with keys of every scope, and runs made by some of them."""
    store_file = str(tmp_path_factory.mktemp("scopes") / "api.db")
    with open_store(store_file) as store:
        keys = {
            name: bearer(create_key(store, scope, name)[0])
            for name, scope in [
                ("eval", "evaluate"),
                ("eval2", "evaluate"),
                ("build", "build"),
                ("admin", "admin"),
            ]
        }
        store.save_build(_build("holdout"))
        store.save_build(_build("train"))
    app, _ = open_api([SHOP], store=store_file, operator_key=OPERATOR_KEY)
    with TestClient(app) as client:
        runs = {
            "eval": _run(client, keys["eval"], tasks=["update-address"]),
            # the operator's unscored run of a holdout task and a dev task, both failed
            "holdout": _run(client, OPERATOR, tasks=[HOLDOUT, DEV], split=["holdout", "dev"]),
        }
        for run in runs.values():
            for task_run in run["task_runs"]:
                token = bearer(run["bearer_token"])
                assert client.post(task_run["start_url"], headers=token).status_code == 200
                done = client.post(task_run["complete_url"], json={"output": "x"}, headers=token)
                assert done.status_code == 200
        yield client, keys, runs


def _build(split: str) -> dict:
    return {
        "id": f"bd_{split}",
        "world": "shop",
        "version": "1",
        "model": "m",
        "prompt_hash": "0" * 64,
        "split": split,
        "published": [],
        "rejected": [],
        "drafts": [{"toml": f"secret {split} draft"}],
    }


def _run(client, headers, **body):
    response = client.post(
        "/v1/benchmark-runs", json={"benchmark": "shop@1", **body}, headers=headers
    )
    assert response.status_code == 201, response.text
    return response.json()


def test_an_evaluate_key_runs_scored_and_sees_only_its_own_runs(world):
    client, keys, runs = world
    mine = runs["eval"]
    assert mine["scored"] is True
    run_url = f"/v1/benchmark-runs/{mine['benchmark_run_id']}"
    task_run = mine["task_runs"][0]["id"]
    for who, status in [("eval", 200), ("admin", 200), ("eval2", 404), ("build", 404)]:
        assert client.get(run_url, headers=keys[who]).status_code == status, who
        assert client.get(f"/v1/task-runs/{task_run}", headers=keys[who]).status_code == status
        checks = client.get(
            "/v1/criterion-runs", params={"task_run_id": task_run}, headers=keys[who]
        )
        assert checks.status_code == status
    assert client.get(run_url, headers=bearer(runs["holdout"]["bearer_token"])).status_code == 404
    # scored-mode rules for the key; full evidence for the admin
    seen = client.get("/v1/criterion-runs", params={"task_run_id": task_run}, headers=keys["eval"])
    assert all(check.get("details") is None for check in seen.json()["data"])
    assert all(check.get("evidence") is None for check in seen.json()["data"])
    full = client.get("/v1/criterion-runs", params={"task_run_id": task_run}, headers=keys["admin"])
    assert all(check.get("evidence") is not None for check in full.json()["data"])
    refused = client.post(
        "/v1/benchmark-runs", json={"benchmark": "shop@1", "scored": False}, headers=keys["eval"]
    )
    assert refused.status_code == 403
    assert refused.json()["error"]["message"] == "scored: an evaluate key creates scored runs only"


def test_a_holdout_task_runs_details_reach_only_the_admin(world):
    client, keys, runs = world
    token = bearer(runs["holdout"]["bearer_token"])
    by_task = {task_run["task_id"]: task_run["id"] for task_run in runs["holdout"]["task_runs"]}

    def failing_details(headers, task_id):
        page = client.get(
            "/v1/criterion-runs", params={"task_run_id": by_task[task_id]}, headers=headers
        )
        assert page.status_code == 200
        return [check.get("details") for check in page.json()["data"] if not check["passed"]]

    assert all(detail is None for detail in failing_details(token, HOLDOUT))
    assert runs["holdout"]["scored"] is True  # a run holding a holdout task is always scored
    assert any(detail for detail in failing_details(OPERATOR, HOLDOUT))
    assert any(detail for detail in failing_details(keys["admin"], HOLDOUT))
    shown = client.get(f"/v1/task-runs/{by_task[HOLDOUT]}", headers=token).json()["result"]
    assert all(check.get("details") is None for check in shown["checks"])


def test_keys_are_managed_by_the_admin_alone(world):
    client, keys, runs = world
    token = bearer(runs["eval"]["bearer_token"])
    for who in (keys["eval"], keys["build"], token):
        assert client.get("/v1/keys", headers=who).status_code == 403
        assert client.post("/v1/keys", json={"scope": "admin"}, headers=who).status_code == 403
        assert client.delete("/v1/keys/key_x", headers=who).status_code == 403
    made = client.post("/v1/keys", json={"scope": "evaluate", "name": "ci"}, headers=keys["admin"])
    assert made.status_code == 201
    new = made.json()
    assert new["key"].startswith("ask_") and new["state"] == "active"
    listed = client.get("/v1/keys", headers=OPERATOR).json()["data"]
    assert "key" not in listed[0] and new["id"] in [key["id"] for key in listed]
    headers = bearer(new["key"])
    assert client.get("/v1/worlds", headers=headers).status_code == 200
    assert client.delete(f"/v1/keys/{new['id']}", headers=OPERATOR).json()["state"] == "revoked"
    revoked = client.get("/v1/worlds", headers=headers)
    assert revoked.status_code == 401 and revoked.json()["error"]["code"] == "key_revoked"
    assert client.delete("/v1/keys/key_nope", headers=OPERATOR).status_code == 404
    bad = client.post("/v1/keys", json={"scope": "root"}, headers=OPERATOR)
    assert bad.status_code == 422
    past = client.post(
        "/v1/keys", json={"scope": "build", "expires": "2001-01-01"}, headers=OPERATOR
    )
    assert past.status_code == 422 and "expires: '2001-01-01' is in the past" in past.text


def test_an_expired_key_is_401(world):
    client, _, _ = world
    secret, _ = create_key(client.app.state.context.store, "build", "short", "1s")
    time.sleep(1.1)
    refused = client.get("/v1/worlds", headers=bearer(secret))
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "token_expired"


def test_reading_tasks_validation_builds_needs_build_and_never_shows_holdout_but_to_the_admin(
    world,
):
    client, keys, runs = world
    token = bearer(runs["eval"]["bearer_token"])
    for path in (
        "/v1/worlds/shop/tasks",
        "/v1/worlds/shop/validation",
        "/v1/worlds/shop/builds",
        "/v1/episodes",
    ):
        assert client.get(path, headers=keys["eval"]).status_code == 403, path
        assert client.get(path, headers=token).status_code == 403, path
        assert client.get(path).status_code == 401
    assert client.get("/v1/worlds", headers=token).status_code == 403
    assert [
        w["benchmark"] for w in client.get("/v1/worlds", headers=keys["eval"]).json()["data"]
    ] == ["shop@1"]

    def ids(path, who, field="id"):
        response = client.get(path, headers=keys[who])
        assert response.status_code == 200
        return {entry[field] for entry in response.json()["data"]}

    assert HOLDOUT not in ids("/v1/worlds/shop/tasks", "build")
    assert DEV in ids("/v1/worlds/shop/tasks", "build")
    assert HOLDOUT in ids("/v1/worlds/shop/tasks", "admin")
    assert HOLDOUT not in ids("/v1/worlds/shop/validation", "build", "task_id")
    assert HOLDOUT in ids("/v1/worlds/shop/validation", "admin", "task_id")
    assert ids("/v1/worlds/shop/builds", "build") == {"bd_train"}
    assert ids("/v1/worlds/shop/builds", "admin") == {"bd_train", "bd_holdout"}
    assert client.get("/v1/worlds/nowhere/tasks", headers=keys["build"]).status_code == 404


def test_failed_episodes_are_train_and_dev_only_whatever_the_key(world):
    client, keys, _ = world
    for who in ("build", "admin"):
        rows = client.get("/v1/episodes", headers=keys[who]).json()["data"]
        assert {row["task"] for row in rows} == {DEV, "update-address"}
        assert rows[0]["trajectory"] and rows[0]["checks"] and rows[0]["outcome"] != "verified"
        for split in (["holdout"], ["train", "holdout"], ["dev,holdout"]):
            refused = client.get("/v1/episodes", params={"split": split}, headers=keys[who])
            assert refused.status_code == 403
            assert refused.json()["error"]["code"] == "holdout_refused"
    assert (
        client.get("/v1/episodes", params={"split": "test"}, headers=keys["build"]).status_code
        == 422
    )
    dev = client.get(
        "/v1/episodes", params={"benchmark": "shop@1", "split": "dev"}, headers=keys["build"]
    )
    assert {row["task"] for row in dev.json()["data"]} == {DEV}


def test_every_endpoint_refuses_a_caller_without_credentials(world):
    client, _, _ = world
    for method, path in every_endpoint(client.get("/openapi.json").json()):
        response = client.request(method, path, params={"task_run_id": "x"}, json={})
        assert response.status_code == 401, (method, path)


def test_a_run_token_stops_working_once_its_key_is_revoked(world):
    """The token of a run made by a key outlived the key: start still answered 200."""
    client, _, _ = world
    secret, record = create_key(client.app.state.context.store, "evaluate", "soon-revoked")
    run = _run(client, bearer(secret), tasks=["update-address", DEV])
    token = bearer(run["bearer_token"])
    first, second = run["task_runs"]
    assert client.post(first["start_url"], headers=token).status_code == 200
    assert client.delete(f"/v1/keys/{record.id}", headers=OPERATOR).status_code == 200
    for refused in (
        client.post(second["start_url"], headers=token),
        client.post(first["act_url"], json={"say": "hello"}, headers=token),
        client.get(f"/v1/benchmark-runs/{run['benchmark_run_id']}", headers=token),
    ):
        assert refused.status_code == 401, refused.text
        assert refused.json()["error"]["code"] == "key_revoked"
        assert f"the key {record.id} that created run" in refused.json()["error"]["message"]
    operators = client.get(f"/v1/benchmark-runs/{run['benchmark_run_id']}", headers=OPERATOR)
    assert operators.status_code == 200  # the run itself stays, for the operator to read
