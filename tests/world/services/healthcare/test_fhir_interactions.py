"""FHIR interactions beyond the basics, on both backends: conditional update (no match creates,
one match is replaced, several are refused) and server ids that never overwrite a seeded one."""

from __future__ import annotations

import json

import pytest
from healthkit import write_ehr_world

from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.taskrun.agents.scripted import ActionsAgent

MRN = "http://genhosp.example/mrn"


def call(tool, **args):
    return {"call": {"tool": tool, "args": args}}


def patient(mrn, family, **more):
    return {
        "resourceType": "Patient",
        "identifier": [{"system": MRN, "value": mrn}],
        "name": [{"family": family}],
        **more,
    }


def results(ehr, actions):
    result = run_task(ehr, ehr.tasks["book"], ActionsAgent(actions), run_id=new_id("tr"))
    return [
        event
        for step in result.trajectory["steps"]
        for event in step["events"]
        if event.get("type") == "tool_result"
    ]


@pytest.fixture
def ehr(tmp_path, open_world):
    root = write_ehr_world(tmp_path / "ehr")
    taken = patient("MRN0009", "Seeded", id="patient-0001")  # an id of the server's own form
    (root / "data" / "fhir" / "taken.json").write_text(json.dumps(taken))
    return open_world(root)


def test_a_conditional_update_with_one_match_replaces_that_resource(ehr):
    actions = [
        call(
            "fhir_update",
            resource=patient("MRN0001", "Smith", gender="male", birthDate="1970-01-16"),
            conditional=f"identifier={MRN}|MRN0001",
        ),
        call("fhir_read", resource_type="Patient", id="john-smith"),
    ]
    updated, read = results(ehr, actions)
    assert (updated["result"]["id"], updated["result"]["meta"]["versionId"]) == ("john-smith", "2")
    assert read["result"]["birthDate"] == "1970-01-16"


def test_a_conditional_update_with_no_match_creates_with_a_fresh_id(ehr):
    actions = [
        call("fhir_update", resource=patient("MRN0077", "New"), conditional="family=new"),
        call("fhir_search", resource_type="Patient", params={"identifier": f"{MRN}|MRN0077"}),
    ]
    created, found = results(ehr, actions)
    assert created["result"]["id"] == "patient-0002"  # patient-0001 is a seeded resource
    assert created["result"]["meta"]["versionId"] == "1"
    assert found["result"]["total"] == 1


def test_a_conditional_update_matching_several_or_another_id_is_refused(ehr):
    several = call(
        "fhir_update", resource=patient("MRN0001", "Smith"), conditional="_id=john-smith,zoe-muller"
    )
    other = call(
        "fhir_update",
        resource=patient("MRN0001", "Smith", id="zoe-muller"),
        conditional=f"identifier={MRN}|MRN0001",
    )
    ambiguous = call(
        "fhir_update", resource=patient("MRN0001", "Smith"), conditional="family=s"
    )  # Smith and Seeded
    many, mismatch, prefix = results(ehr, [several, other, ambiguous])
    assert (many["code"], mismatch["code"]) == ("precondition_failed", "bad_request")
    assert "matched john-smith, not zoe-muller" in mismatch["message"]
    assert (prefix["status"], prefix["code"]) == ("ERROR", "precondition_failed")


def test_a_conditional_update_in_a_transaction(ehr):
    bundle = {
        "resourceType": "Bundle",
        "type": "transaction",
        "entry": [
            {
                "resource": patient("MRN0002", "Müller", gender="female"),
                "request": {"method": "PUT", "url": f"Patient?identifier={MRN}|MRN0002"},
            }
        ],
    }
    (answer,) = results(ehr, [call("fhir_transaction", bundle=bundle)])
    entry = answer["result"]["entry"][0]
    assert entry["response"]["location"].startswith("Patient/zoe-muller/_history/2")


def test_created_ids_skip_a_seeded_id_of_the_same_form(ehr):
    made, seeded = results(
        ehr,
        [
            call("fhir_create", resource=patient("MRN0050", "Other")),
            call("fhir_read", resource_type="Patient", id="patient-0001"),
        ],
    )
    assert made["result"]["id"] == "patient-0002"
    assert seeded["result"]["name"] == [{"family": "Seeded"}]


def test_sort_count_and_the_searchset_shape(ehr):
    def search(**params):
        return call("fhir_search", resource_type="Patient", params=params)

    actions = [
        search(_sort="birthdate", gender="male,female"),
        search(_sort="-birthdate", gender="male,female"),
        search(_count="0"),
        search(_sort="date"),  # R4 gives Patient no `date` parameter
        search(_count="lots"),
    ]
    oldest, youngest, counted, bad_sort, bad_count = results(ehr, actions)
    ids = lambda event: [e["resource"]["id"] for e in event["result"]["entry"]]  # noqa: E731
    assert ids(oldest) == ["john-smith", "zoe-muller"]
    assert ids(youngest) == ["zoe-muller", "john-smith"]
    page = "http://ehr.local/fhir/Patient?_sort=birthdate&gender=male,female&_count=50&_offset=0"
    assert oldest["result"]["link"] == [
        {"relation": "self", "url": page},
        {"relation": "first", "url": page},
        {"relation": "last", "url": page},
    ]
    assert oldest["result"]["entry"][0]["fullUrl"] == "http://ehr.local/fhir/Patient/john-smith"
    assert counted["result"]["total"] == 3
    assert "entry" not in counted["result"]  # R4: an empty element is left out
    assert (bad_sort["code"], bad_count["code"]) == ("bad_request", "bad_request")
