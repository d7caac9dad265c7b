"""FHIR R4's RESTful API against a real `assay serve`: fhirpy and fhirclient (SMART) page through
every patient and read the CapabilityStatement, and plain httpx holds the status codes, headers,
Prefer, paging and refusals of R4 http.html; every body validates with fhir.resources."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from apikit import KEY, Server
from healthkit import write_ehr_world

CLINIC = Path(__file__).parents[2] / "worlds" / "clinic"
MAX_BODY = 200_000
# R4 IssueType (valueset-issue-type.html): the codes an OperationOutcome issue may carry
ISSUE_TYPES = {
    *("invalid", "structure", "required", "value", "invariant", "security", "login"),
    *("unknown", "expired", "forbidden", "suppressed", "processing", "not-supported"),
    *("duplicate", "multiple-matches", "not-found", "deleted", "too-long", "code-invalid"),
    *("extension", "too-costly", "business-rule", "conflict", "transient", "lock-error"),
    *("no-store", "exception", "timeout", "incomplete", "throttled", "informational"),
}
PATIENT = {
    "resourceType": "Patient",
    "identifier": [{"system": "http://genhosp.example/mrn", "value": "MRN7777"}],
    "name": [{"family": "Okafor", "given": ["Chidi"]}],
    "gender": "male",
}


def valid(body: dict) -> dict:
    """The body, once fhir.resources (R4B, R4 on the wire here) accepts it; OperationOutcomes
    carry only R4 IssueType codes."""
    from fhir.resources.R4B import get_fhir_model_class

    get_fhir_model_class(body["resourceType"]).model_validate(body)
    outcomes = [body] if body["resourceType"] == "OperationOutcome" else []
    outcomes += [
        e["resource"] for e in body.get("entry", []) if e.get("search", {}).get("mode") == "outcome"
    ]
    outcomes += [
        e["response"]["outcome"]
        for e in body.get("entry", [])
        if "outcome" in e.get("response", {})
    ]
    for outcome in outcomes:
        assert {issue["code"] for issue in outcome["issue"]} <= ISSUE_TYPES, outcome
    return body


def refusal(response: httpx.Response, status: int, issue_type: str) -> str:
    """The diagnostics of an OperationOutcome answered with `status` and `issue_type`."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/fhir+json")
    body = valid(response.json())
    assert set(body) == {"resourceType", "issue"}  # no element R4 does not define
    (issue,) = body["issue"]
    assert (issue["severity"], issue["code"]) == ("error", issue_type)
    return issue["diagnostics"]


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("fhir-rest")
    ehr = write_ehr_world(tmp / "ehr")
    options = ("--worlds", str(CLINIC), "--worlds", str(ehr), "--max-body-bytes", str(MAX_BODY))
    served = Server(tmp / "store.db", tmp / "home", *options).start()
    try:
        yield served.url
    finally:
        served.stop()


def started(server: str, benchmark: str, task: str) -> tuple[str, dict[str, str]]:
    """A new benchmark run of one task, its task run started: the FHIR base and the headers."""
    operator = {"Authorization": f"Bearer {KEY}"}
    body = {"benchmark": benchmark, "tasks": [task]}
    run = httpx.post(f"{server}/v1/benchmark-runs", json=body, headers=operator).json()
    headers = {"Authorization": f"Bearer {run['bearer_token']}"}
    start = httpx.post(server + run["task_runs"][0]["start_url"], headers=headers)
    assert start.status_code == 200, start.text
    return server + run["endpoints"]["fhir"], headers


@pytest.fixture
def clinic(server):
    return started(server, "clinic", "register-walk-in")  # the scheduler: no fhir_delete


@pytest.fixture
def ehr(server):
    return started(server, "ehr", "book")  # a role with every FHIR tool


def test_fhirpy_fetch_all_pages_through_all_twelve_patients(clinic):
    from fhirpy import SyncFHIRClient

    base, headers = clinic
    client = SyncFHIRClient(base, authorization=headers["Authorization"])
    patients = client.resources("Patient").limit(5).fetch_all()
    assert len({patient.id for patient in patients}) == len(patients) == 12


def test_fhirclient_prepares_reads_the_capability_and_iterates_pages(clinic):
    from fhirclient import client
    from fhirclient.models.patient import Patient

    base, headers = clinic
    smart = client.FHIRClient(settings={"app_id": "conformance", "api_base": base})
    smart.server.session.headers.update(headers)
    assert smart.prepare() is True
    capability = smart.server.capabilityStatement
    assert capability.fhirVersion == "4.0.1"
    found = list(Patient.where({"_count": "5"}).perform_resources_iter(smart.server))
    assert len({patient.id for patient in found}) == 12


def test_the_capability_statement_lists_only_what_the_role_may_do(clinic, ehr):
    scheduler = valid(httpx.get(f"{clinic[0]}/metadata", headers=clinic[1]).json())
    assert scheduler["fhirVersion"] == "4.0.1" and scheduler["kind"] == "instance"
    assert scheduler["implementation"]["url"] == clinic[0]
    (rest,) = scheduler["rest"]
    patient = next(r for r in rest["resource"] if r["type"] == "Patient")
    codes = [i["code"] for i in patient["interaction"]]
    assert codes == ["read", "vread", "update", "create", "search-type"]  # no delete
    assert {"name": "birthdate", "type": "date"} in patient["searchParam"]
    full = valid(httpx.get(f"{ehr[0]}/metadata", headers=ehr[1]).json())
    assert "delete" in [i["code"] for i in full["rest"][0]["resource"][0]["interaction"]]


def test_paging_links_are_absolute_and_keep_working_after_a_write(clinic):
    base, headers = clinic
    first = valid(httpx.get(f"{base}/Patient?_count=5", headers=headers).json())
    links = {link["relation"]: link["url"] for link in first["link"]}
    assert links["self"] == f"{base}/Patient?_count=5&_offset=0"
    assert links["next"] == f"{base}/Patient?_count=5&_offset=5"
    assert links["last"] == f"{base}/Patient?_count=5&_offset=10"
    assert "previous" not in links and first["total"] == 12
    assert all(e["fullUrl"].startswith(f"{base}/Patient/") for e in first["entry"])
    made = httpx.post(f"{base}/Patient", json=PATIENT, headers=headers)
    assert made.status_code == 201
    second = valid(httpx.get(links["next"], headers=headers).json())
    assert len(second["entry"]) == 5 and second["total"] == 13
    assert {"relation": "previous", "url": links["self"]} in second["link"]
    counted = valid(httpx.get(f"{base}/Patient?_count=0", headers=headers).json())
    assert counted["total"] == 13 and "entry" not in counted


def test_a_posted_search_keeps_query_form_and_repeated_values(clinic):
    base, headers = clinic
    everyone = httpx.get(f"{base}/Patient?_count=50", headers=headers).json()["entry"]
    born = sorted(e["resource"]["birthDate"] for e in everyone)
    low, high = born[2], born[8]
    answer = httpx.post(
        f"{base}/Patient/_search?birthdate=ge{low}",
        content=f"birthdate=le{high}&_count=50",
        headers={**headers, "Content-Type": "application/x-www-form-urlencoded"},
    )
    found = valid(answer.json())
    assert sorted(e["resource"]["birthDate"] for e in found["entry"]) == born[2:9]
    self_link = found["link"][0]["url"]
    assert f"birthdate=ge{low}&birthdate=le{high}" in self_link
    empty = valid(httpx.get(f"{base}/Patient?family=Nobody", headers=headers).json())
    assert empty["total"] == 0 and "entry" not in empty


def test_create_read_update_answer_r4_status_codes_and_headers(clinic):
    base, headers = clinic
    made = httpx.post(f"{base}/Patient", json=PATIENT, headers=headers)
    assert made.status_code == 201
    ident = valid(made.json())["id"]
    assert made.headers["location"] == f"{base}/Patient/{ident}/_history/1"
    assert made.headers["etag"] == 'W/"1"'
    assert made.headers["last-modified"].endswith(" GMT")
    mrn = {**headers, "If-None-Exist": "identifier=http://genhosp.example/mrn|MRN7777"}
    again = httpx.post(f"{base}/Patient", json=PATIENT, headers=mrn)
    assert (again.status_code, again.json()["id"]) == (200, ident)
    total = httpx.get(f"{base}/Patient?identifier=MRN7777", headers=headers).json()["total"]
    assert total == 1
    read = httpx.get(f"{base}/Patient/{ident}", headers=headers)
    assert read.headers["etag"] == 'W/"1"'
    cached = httpx.get(f"{base}/Patient/{ident}", headers={**headers, "If-None-Match": 'W/"1"'})
    assert (cached.status_code, cached.content) == (304, b"")
    since = {**headers, "If-Modified-Since": read.headers["last-modified"]}
    assert httpx.get(f"{base}/Patient/{ident}", headers=since).status_code == 304
    changed = {**read.json(), "gender": "other"}
    updated = httpx.put(f"{base}/Patient/{ident}", json=changed, headers=headers)
    assert (updated.status_code, updated.headers["etag"]) == (200, 'W/"2"')
    fresh = {**PATIENT, "id": "walk-in-77"}
    put_new = httpx.put(f"{base}/Patient/walk-in-77", json=fresh, headers=headers)
    assert put_new.status_code == 201
    assert put_new.headers["location"] == f"{base}/Patient/walk-in-77/_history/1"


def test_prefer_return_and_handling(clinic):
    base, headers = clinic
    minimal = httpx.post(
        f"{base}/Patient", json=PATIENT, headers={**headers, "Prefer": "return=minimal"}
    )
    assert (minimal.status_code, minimal.content) == (201, b"")
    assert "/_history/1" in minimal.headers["location"]
    outcome = httpx.post(
        f"{base}/Patient",
        json={**PATIENT, "name": [{"family": "Adeyemi"}]},
        headers={**headers, "Prefer": "return=OperationOutcome"},
    )
    body = valid(outcome.json())
    assert (outcome.status_code, body["issue"][0]["code"]) == (201, "informational")
    strict = httpx.get(f"{base}/Patient?nickname=x", headers=headers)
    assert "nickname" in refusal(strict, 400, "invalid")
    lenient = httpx.get(
        f"{base}/Patient?nickname=x&family=chen",
        headers={**headers, "Prefer": "handling=lenient"},
    )
    found = valid(lenient.json())
    modes = [e["search"]["mode"] for e in found["entry"]]
    assert modes == ["match", "outcome"]
    assert "nickname" in found["entry"][-1]["resource"]["issue"][0]["diagnostics"]


def test_every_refusal_is_an_operation_outcome_with_its_status(clinic):
    base, headers = clinic
    json_headers = {**headers, "Content-Type": "application/fhir+json"}
    assert "no Patient/nope" in refusal(
        httpx.get(f"{base}/Patient/nope", headers=headers), 404, "not-found"
    )
    refusal(httpx.get(f"{base}/Patient/x/_history/abc", headers=headers), 404, "not-found")
    refusal(httpx.get(f"{base}/Spaceship?name=x", headers=headers), 404, "not-supported")
    refusal(httpx.post(f"{base}/Patient", content=b"{oops", headers=json_headers), 400, "structure")
    refusal(httpx.patch(f"{base}/Patient/x", json={}, headers=headers), 405, "not-supported")
    refusal(httpx.delete(f"{base}/Patient/x", headers=headers), 403, "forbidden")
    no_id = httpx.put(f"{base}/Patient/x", json=PATIENT, headers=headers)
    assert "has no id" in refusal(no_id, 400, "invalid")
    other = httpx.put(f"{base}/Patient/x", json={**PATIENT, "id": "y"}, headers=headers)
    refusal(other, 400, "invalid")
    refusal(httpx.get(f"{base}/Patient?_format=xml", headers=headers), 406, "not-supported")
    xml = {**headers, "Accept": "application/fhir+xml"}
    refusal(httpx.get(f"{base}/Patient", headers=xml), 406, "not-supported")
    as_xml = {**headers, "Content-Type": "application/fhir+xml"}
    refusal(
        httpx.post(f"{base}/Patient", content=b"<Patient/>", headers=as_xml), 415, "not-supported"
    )
    bad = httpx.post(f"{base}/Patient", json={**PATIENT, "gender": "femal"}, headers=headers)
    refusal(bad, 422, "code-invalid")
    refusal(
        httpx.get(f"{base}/Patient?birthdate=ge2026&_count=many", headers=headers), 400, "invalid"
    )
    unauthenticated = httpx.get(f"{base}/Patient")
    refusal(unauthenticated, 401, "login")


@pytest.mark.parametrize("depth", [500, 3000])
def test_a_body_nested_too_deep_is_400(clinic, depth):
    base, headers = clinic
    deep = json.dumps(PATIENT)[:-1] + ', "extension": ' + "[" * depth + "]" * depth + "}"
    answer = httpx.post(
        f"{base}/Patient",
        content=deep,
        headers={**headers, "Content-Type": "application/fhir+json"},
    )
    assert "nests deeper" in refusal(answer, 400, "structure")


def test_a_body_past_the_limit_is_413(clinic):
    base, headers = clinic
    big = {**PATIENT, "name": [{"family": "x" * MAX_BODY}]}
    refusal(httpx.post(f"{base}/Patient", json=big, headers=headers), 413, "too-long")


def test_delete_read_after_delete_and_a_batch_of_independent_entries(ehr):
    base, headers = ehr
    deleted = httpx.delete(f"{base}/Patient/zoe-muller", headers=headers)
    assert deleted.status_code == 200
    assert valid(deleted.json())["resourceType"] == "OperationOutcome"
    refusal(httpx.get(f"{base}/Patient/zoe-muller", headers=headers), 410, "deleted")
    batch = {
        "resourceType": "Bundle",
        "type": "batch",
        "entry": [
            {"request": {"method": "GET", "url": "Patient/john-smith"}},
            {
                "resource": {**PATIENT, "gender": "femal"},
                "request": {"method": "POST", "url": "Patient"},
            },
            {"resource": PATIENT, "request": {"method": "POST", "url": "Patient"}},
        ],
    }
    answer = httpx.post(base, json=batch, headers=headers)
    entries = valid(answer.json())["entry"]
    assert [e["response"]["status"] for e in entries] == ["200 OK", "422", "201 Created"]
    assert entries[1]["response"]["outcome"]["issue"][0]["code"] == "code-invalid"
    transaction = {**batch, "type": "transaction"}
    refused = httpx.post(base, json=transaction, headers=headers)
    refusal(refused, 422, "code-invalid")
    total = httpx.get(f"{base}/Patient?identifier=MRN7777", headers=headers).json()["total"]
    assert total == 1  # the batch's one good create; the transaction made none
