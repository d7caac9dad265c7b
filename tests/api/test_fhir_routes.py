"""The FHIR server over HTTP: R4's REST shape, acting on the run's started task run, graded as in
process."""

from __future__ import annotations

from pathlib import Path

from apikit import new_run, world_api
from healthkit import APPOINTMENT, write_ehr_world


def test_a_booking_made_over_http_is_graded_as_in_process(tmp_path):
    world = write_ehr_world(tmp_path / "ehr")
    with world_api(world, tmp_path / "api.db") as api:
        run, headers = new_run(api, "ehr")
        base = run["endpoints"]["fhir"]
        (task_run,) = run["task_runs"]
        api.post(task_run["start_url"], headers=headers)
        assert api.get(f"{base}/metadata", headers=headers).json()["fhirVersion"] == "4.0.1"
        unknown = api.get(f"{base}/Patient?nickname=x", headers=headers)
        assert unknown.status_code == 400
        assert unknown.json()["resourceType"] == "OperationOutcome"
        slots = api.get(f"{base}/Slot?status=free&start=ge2026-03-05", headers=headers).json()
        assert [e["resource"]["id"] for e in slots["entry"]] == ["slot-thu"]
        made = api.post(f"{base}/Appointment", json=APPOINTMENT, headers=headers)
        assert made.status_code == 201
        # R4: Location is absolute, on the base the client reached
        assert made.headers["location"] == (
            f"http://testserver{base}/Appointment/appointment-0001/_history/1"
        )
        assert made.headers["content-type"].startswith("application/fhir+json")
        slot = api.get(f"{base}/Slot/slot-thu", headers=headers).json()
        stale = api.put(
            f"{base}/Slot/slot-thu",
            json={**slot, "status": "busy"},
            headers={**headers, "If-Match": 'W/"9"'},
        )
        assert stale.status_code == 412
        busy = api.put(
            f"{base}/Slot/slot-thu",
            json={**slot, "status": "busy"},
            headers={**headers, "If-Match": 'W/"1"'},
        )
        assert busy.json()["meta"]["versionId"] == "2"
        bad = api.post(
            f"{base}/Patient", json={"resourceType": "Patient", "gender": "femal"}, headers=headers
        )
        assert (bad.status_code, bad.json()["issue"][0]["code"]) == (422, "code-invalid")
        assert api.delete(f"{base}/Appointment/nope", headers=headers).status_code == 404
        done = api.post(task_run["complete_url"], json={"output": "booked"}, headers=headers).json()
        assert (done["outcome"], done["reward"]) == ("verified", 1)


def test_a_search_posted_as_a_form_matches_the_query_string(tmp_path):
    world = write_ehr_world(tmp_path / "ehr")
    with world_api(world, tmp_path / "api.db") as api:
        run, headers = new_run(api, "ehr")
        api.post(run["task_runs"][0]["start_url"], headers=headers)
        found = api.post(
            f"{run['endpoints']['fhir']}/Patient/_search",
            data={"gender": "female"},
            headers=headers,
        )
        assert [e["resource"]["id"] for e in found.json()["entry"]] == ["zoe-muller"]


def test_conditional_update_vread_and_a_deleted_resource_over_http(tmp_path):
    world = write_ehr_world(tmp_path / "ehr")
    with world_api(world, tmp_path / "api.db") as api:
        run, headers = new_run(api, "ehr")
        base = run["endpoints"]["fhir"]
        api.post(run["task_runs"][0]["start_url"], headers=headers)
        rest = api.get(f"{base}/metadata", headers=headers).json()["rest"][0]
        observation = next(r for r in rest["resource"] if r["type"] == "Observation")
        assert {"name": "value-quantity", "type": "quantity"} in observation["searchParam"]
        assert observation["conditionalUpdate"] is True
        smith = api.get(f"{base}/Patient/john-smith", headers=headers).json()
        moved = api.put(
            f"{base}/Patient?identifier=http://genhosp.example/mrn|MRN0001",
            json={**{k: v for k, v in smith.items() if k != "id"}, "birthDate": "1970-01-16"},
            headers=headers,
        )
        assert (moved.status_code, moved.json()["id"]) == (200, "john-smith")
        several = api.put(f"{base}/Patient?_id=john-smith,zoe-muller", json=smith, headers=headers)
        assert (several.status_code, several.json()["resourceType"]) == (412, "OperationOutcome")
        no_search = api.put(f"{base}/Patient", json=smith, headers=headers)
        assert no_search.status_code == 400
        first = api.get(f"{base}/Patient/john-smith/_history/1", headers=headers).json()
        assert first["birthDate"] == "1970-01-15"
        assert api.delete(f"{base}/Patient/zoe-muller", headers=headers).status_code == 200
        gone = api.get(f"{base}/Patient/zoe-muller", headers=headers)
        assert (gone.status_code, gone.json()["issue"][0]["code"]) == (410, "deleted")


def valid(body):
    from fhir.resources.R4B import get_fhir_model_class

    get_fhir_model_class(body["resourceType"]).model_validate(body)
    return body


def test_the_capability_statement_is_valid_r4_and_follows_the_role(tmp_path):
    world = write_ehr_world(tmp_path / "ehr")
    with world_api(world, tmp_path / "api.db") as api:
        run, headers = new_run(api, "ehr")
        base = run["endpoints"]["fhir"]
        statement = valid(api.get(f"{base}/metadata", headers=headers).json())
        assert (statement["status"], statement["date"]) == ("active", "2026-03-02T09:00:00Z")
        assert statement["implementation"]["url"] == f"http://testserver{base}"
        (rest,) = statement["rest"]
        assert rest["mode"] == "server"
        assert rest["interaction"] == [{"code": "transaction"}, {"code": "batch"}]
        patient = next(r for r in rest["resource"] if r["type"] == "Patient")
        assert [i["code"] for i in patient["interaction"]] == [
            *("read", "vread", "update", "delete", "create", "search-type")
        ]


def test_refusals_before_any_call_are_operation_outcomes_only(tmp_path):
    world = write_ehr_world(tmp_path / "ehr")
    with world_api(world, tmp_path / "api.db") as api:
        run, headers = new_run(api, "ehr")
        base = run["endpoints"]["fhir"]
        idle = api.get(f"{base}/Patient", headers=headers)
        assert idle.status_code == 409
        assert set(valid(idle.json())) == {"resourceType", "issue"}  # no `error` beside it
        assert idle.json()["issue"][0]["code"] == "conflict"
        missing = api.get("/v1/benchmark-runs/br_nope/fhir/Patient", headers=headers)
        assert (missing.status_code, missing.json()["issue"][0]["code"]) == (404, "not-found")


def test_a_fault_is_an_operation_outcome_naming_the_operation_to_retry(tmp_path):
    clinic = Path(__file__).parents[2] / "worlds" / "clinic"
    with world_api(clinic, tmp_path / "api.db") as api:
        run, headers = new_run(api, "clinic")
        (task_run,) = [t for t in run["task_runs"] if t["task_id"] == "book-after-timeout"]
        api.post(task_run["start_url"], headers=headers)
        base = run["endpoints"]["fhir"]
        tools = valid(api.get(f"{base}/metadata", headers=headers).json())["rest"][0]
        assert "delete" not in {i["code"] for r in tools["resource"] for i in r["interaction"]}
        booking = {
            "resourceType": "Appointment",
            "status": "booked",
            "participant": [{"actor": {"reference": "Patient/mei-chen"}, "status": "accepted"}],
        }
        answer = api.post(f"{base}/Appointment", json=booking, headers=headers)
        assert answer.status_code == 503
        (issue,) = valid(answer.json())["issue"]
        assert issue["code"] == "timeout"
        assert issue["details"]["coding"][0]["code"].startswith("op")
