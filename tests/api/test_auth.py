"""Who may do what: the operator key, a run's token, and nobody else."""

from __future__ import annotations

import warnings

import pytest
from apikit import OPERATOR, OPERATOR_KEY, bearer, create, every_endpoint
from worldkit import SHOP

from assay.api import open_api
from assay.api.fhir_http import FHIR_PATH
from assay.errors import UsageError

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


@pytest.fixture(scope="module")
def two_runs(api):
    mine = create(api, tasks=["update-address"])
    theirs = create(api, tasks=["update-address"], scored=True)
    return mine, theirs


def test_missing_or_wrong_credentials_are_401(api, two_runs):
    mine, _ = two_runs
    url = f"/v1/benchmark-runs/{mine['benchmark_run_id']}"
    for headers in (
        {},
        {"Authorization": "Bearer nope"},
        {"Authorization": f"Basic {OPERATOR_KEY}"},
    ):
        response = api.get(url, headers=headers)
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "unauthorized"
    assert api.post("/v1/benchmark-runs", json={"benchmark": "shop"}).status_code == 401


def test_the_health_route_answers_anyone_and_is_not_an_endpoint_of_the_document(api):
    """What a supervisor (and the tests) poll to know the server is up, with no credential."""
    answer = api.get("/v1/health")
    assert (answer.status_code, answer.json()) == (200, {"status": "ok"})
    assert "/v1/health" not in api.get("/openapi.json").json()["paths"]


NON_ASCII = {
    "utf-8": "Bearer é-token".encode(),
    "latin-1": "Bearer é-token".encode("latin-1"),
    "the operator key and more": f"Bearer {OPERATOR_KEY}€".encode(),
    "only non-ascii": "Bearer ключ".encode(),
}


@pytest.mark.parametrize("header", NON_ASCII.values(), ids=NON_ASCII)
def test_a_non_ascii_token_is_401_on_every_endpoint(api, header):
    endpoints = every_endpoint(api.get("/openapi.json").json())
    # the flow, keys, worlds and episodes, and the FHIR, portal, voice, HL7, files and X12 surfaces
    assert len(endpoints) == 49
    for method, path in endpoints:
        response = api.request(
            method, path, params={"task_run_id": "x"}, json={}, headers={"Authorization": header}
        )
        assert response.status_code == 401, (method, path, response.text)
        if FHIR_PATH.match(path):  # R4: a FHIR error is an OperationOutcome
            (issue,) = response.json()["issue"]
            assert (issue["code"], issue["diagnostics"]) == (
                "login",
                "the bearer token is not valid",
            )
            continue
        assert response.json()["error"] == {
            "code": "unauthorized",
            "message": "the bearer token is not valid",
        }
    assert api.get("/v1/criterion-runs/x", headers=OPERATOR).status_code == 404


@pytest.mark.parametrize(
    ("given", "environment", "named"),
    [
        ("clé", None, "operator_key"),
        (None, "ключ", "ASSAY_API_KEY"),
        ("tab\tkey", None, "operator_key"),
    ],
)
def test_an_operator_key_no_header_can_carry_is_refused(
    tmp_path, monkeypatch, given, environment, named
):
    monkeypatch.setenv("ASSAY_API_KEY", environment or "")
    with pytest.raises(UsageError) as refused:
        open_api([SHOP], store=str(tmp_path / "api.db"), operator_key=given)
    assert str(refused.value) == f"{named}: the operator key must be printable ASCII"


def test_a_run_token_reaches_only_its_own_run(api, two_runs):
    mine, theirs = two_runs
    headers = bearer(mine["bearer_token"])
    other_task_run = theirs["task_runs"][0]
    for response in (
        api.get(f"/v1/benchmark-runs/{theirs['benchmark_run_id']}", headers=headers),
        api.post(f"/v1/benchmark-runs/{theirs['benchmark_run_id']}/cancel", headers=headers),
        api.post(other_task_run["start_url"], headers=headers),
        api.get(f"/v1/task-runs/{other_task_run['id']}", headers=headers),
        api.get(
            "/v1/criterion-runs", params={"task_run_id": other_task_run["id"]}, headers=headers
        ),
    ):
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"
    assert (
        api.get(f"/v1/benchmark-runs/{mine['benchmark_run_id']}", headers=headers).status_code
        == 200
    )


def test_only_the_operator_creates_runs(api, two_runs):
    mine, _ = two_runs
    response = api.post(
        "/v1/benchmark-runs", json={"benchmark": "shop"}, headers=bearer(mine["bearer_token"])
    )
    assert (response.status_code, response.json()["error"]["code"]) == (403, "forbidden")


def test_the_operator_reaches_every_run(api, two_runs):
    _, theirs = two_runs
    assert (
        api.get(f"/v1/benchmark-runs/{theirs['benchmark_run_id']}", headers=OPERATOR).status_code
        == 200
    )


def test_a_scored_run_withholds_details_from_its_token_but_not_from_the_operator(api, two_runs):
    _, theirs = two_runs
    headers = bearer(theirs["bearer_token"])
    task_run = theirs["task_runs"][0]
    assert theirs["scored"] is True
    api.post(task_run["start_url"], headers=headers)
    done = api.post(task_run["complete_url"], json={"output": ""}, headers=headers).json()
    assert done["outcome"] == "not_achieved"
    assert done["axes"] and done["score"] is not None
    assert all(check["details"] is None and check["evidence"] is None for check in done["checks"])
    check_id = done["checks"][0]["id"]
    as_agent = api.get(f"/v1/criterion-runs/{check_id}", headers=headers).json()
    assert (as_agent["details"], as_agent["evidence"]) == (None, None)
    as_operator = api.get(f"/v1/criterion-runs/{check_id}", headers=OPERATOR).json()
    assert (
        as_operator["details"]
        == "the query returned '4 Mill Lane, York'; wanted = '18 Mill Lane, York'"
    )
    assert as_operator["evidence"]["actual"] == "4 Mill Lane, York"
    run_as_agent = api.get(f"/v1/task-runs/{task_run['id']}", headers=headers).json()
    assert run_as_agent["result"]["checks"][0]["details"] is None
    run_as_operator = api.get(f"/v1/task-runs/{task_run['id']}", headers=OPERATOR).json()
    assert run_as_operator["result"]["checks"][0]["details"] is not None


def test_an_expired_token_is_401_saying_so(tmp_path):
    app, _ = open_api(
        [SHOP], store=str(tmp_path / "api.db"), operator_key=OPERATOR_KEY, token_ttl_s=0.001
    )
    with TestClient(app) as api:
        run = create(api, tasks=["update-address"])
        response = api.get(
            f"/v1/benchmark-runs/{run['benchmark_run_id']}", headers=bearer(run["bearer_token"])
        )
    assert response.status_code == 401
    error = response.json()["error"]
    assert error["code"] == "token_expired"
    assert error["message"] == f"the bearer token expired at {run['bearer_token_expires_at']}"


def test_tokens_are_kept_only_as_hashes(tmp_path):
    from sqlalchemy import text

    from assay.runs.store import open_store

    app, _ = open_api([SHOP], store=str(tmp_path / "api.db"), operator_key=OPERATOR_KEY)
    with TestClient(app) as api:
        run = create(api, tasks=["update-address"])
    with open_store(str(tmp_path / "api.db")) as store, store.engine.connect() as connection:
        stored = connection.execute(text("SELECT token_hash FROM benchmark_runs")).scalar_one()
    assert run["bearer_token"] not in stored
    assert len(stored) == 64
