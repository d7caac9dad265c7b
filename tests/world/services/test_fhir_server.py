"""The FHIR server: seeds validated, read/vread/search/create/update/delete with R4 semantics and
errors, on both backends; and the fhir-resource-state check."""

from __future__ import annotations

import copy
import json

import pytest
from healthkit import APPOINTMENT, tool_results, write_ehr_world

from assay.errors import SpecError
from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.taskrun.agents.scripted import ActionsAgent


def call(tool, **args):
    return {"call": {"tool": tool, "args": args}}


def search(resource_type, **params):
    return call("fhir_search", resource_type=resource_type, params=params)


SLOT_BUSY = {
    "resourceType": "Slot",
    "id": "slot-thu",
    "status": "busy",
    "schedule": {"reference": "Schedule/rivera-schedule"},
    "start": "2026-03-05T10:00:00Z",
    "end": "2026-03-05T10:30:00Z",
}
BOOK = [call("fhir_create", resource=APPOINTMENT), call("fhir_update", resource=SLOT_BUSY)]


@pytest.fixture
def ehr(tmp_path, open_world):
    return open_world(write_ehr_world(tmp_path / "ehr"))


def run(ehr, actions):
    return run_task(ehr, ehr.tasks["book"], ActionsAgent(actions), run_id=new_id("tr"))


results = tool_results


def test_search_by_token_string_reference_and_date(ehr):
    actions = [
        search("Patient", identifier="http://genhosp.example/mrn|MRN0002"),
        search("Patient", name="muller"),  # case- and accent-insensitive starts-with
        search("Patient", family=":exact"),
        search("Slot", schedule="Schedule/rivera-schedule", status="free", start="ge2026-03-05"),
        search("Patient", gender="female,male", _count="1"),
        search("Patient", nickname="x"),
    ]
    by_mrn, by_name, nothing, thursday, capped, unknown = results(run(ehr, actions))
    ids = lambda event: [e["resource"]["id"] for e in event["result"]["entry"]]  # noqa: E731
    assert ids(by_mrn) == ids(by_name) == ["zoe-muller"]
    assert nothing["result"]["total"] == 0
    assert ids(thursday) == ["slot-thu"]
    assert (capped["result"]["total"], len(capped["result"]["entry"])) == (2, 1)
    assert (unknown["status"], unknown["code"]) == ("ERROR", "bad_request")
    assert "unknown search parameter 'nickname' for Patient" in unknown["message"]


def test_create_update_vread_and_delete_keep_versions_and_times(ehr):
    changed = {**SLOT_BUSY}
    actions = [
        *BOOK,
        call("fhir_update", resource=changed, if_match='W/"1"'),
        call("fhir_vread", resource_type="Slot", id="slot-thu", version=1),
        call("fhir_delete", resource_type="Appointment", id="appointment-0001"),
        call("fhir_read", resource_type="Appointment", id="appointment-0001"),
        call("fhir_read", resource_type="Appointment", id="nope"),
    ]
    created, updated, stale, first, deleted, gone, missing = results(run(ehr, actions))
    assert created["result"]["id"] == "appointment-0001"
    assert created["result"]["meta"] == {"versionId": "1", "lastUpdated": "2026-03-02T09:01:00Z"}
    assert updated["result"]["meta"]["versionId"] == "2"
    assert (stale["status"], stale["code"]) == ("ERROR", "precondition_failed")
    assert first["result"]["status"] == "free"
    assert deleted["result"] == {  # R4: an OperationOutcome, not the resource marked deleted
        "resourceType": "OperationOutcome",
        "issue": [
            {
                "severity": "information",
                "code": "informational",
                "diagnostics": "Appointment/appointment-0001 deleted",
            }
        ],
    }
    assert (gone["code"], missing["code"]) == ("gone", "not_found")


def test_invalid_resources_are_refused_with_their_fhir_path(ehr):
    bad_date = {"resourceType": "Patient", "birthDate": "1980-13-45"}
    bad_code = {"resourceType": "Patient", "gender": "femal"}
    invalid, code = results(
        run(ehr, [call("fhir_create", resource=bad_date), call("fhir_create", resource=bad_code)])
    )
    assert (invalid["code"], code["code"]) == ("invalid", "code_invalid")
    assert invalid["message"].startswith("Patient.birthDate: ")
    assert code["message"].startswith("Patient.gender: 'femal' is not one of male")


def test_if_none_exist_returns_the_match_instead_of_a_duplicate(ehr):
    patient = {
        "resourceType": "Patient",
        "name": [{"family": "Smith"}],
        "identifier": [{"system": "http://genhosp.example/mrn", "value": "MRN0001"}],
    }
    conditional = call(
        "fhir_create",
        resource=patient,
        if_none_exist="identifier=http://genhosp.example/mrn|MRN0001",
    )
    (kept,) = results(run(ehr, [conditional]))
    assert kept["result"]["id"] == "john-smith"


def test_the_check_verifies_the_booking_and_scores_a_wrong_slot(ehr):
    result = run(ehr, BOOK)
    assert result.outcome == "verified"
    evidence = result.checks[0].evidence
    assert (evidence["resource"], evidence["matched"]) == ("Appointment/appointment-0001", 1)
    assert evidence["field_results"][0] == {
        "path": "participant.1.actor.display",
        "expected": "Dr. Rivera",
        "actual": "Dr. Rivera",
        "passed": True,
    }
    wrong = copy.deepcopy(APPOINTMENT)
    wrong["start"] = "2026-03-04T10:00:00Z"
    missed = run(ehr, [call("fhir_create", resource=wrong)])
    check = missed.checks[0]
    assert (check.passed, check.score) == (False, 0.75)
    assert "✗ start: wanted 2026-03-05T10:00:00Z, got 2026-03-04T10:00:00Z" in check.details
    assert missed.outcome == "rule_violated"  # and the Thursday slot is still free


def test_booking_twice_is_a_duplicate_and_fails_the_count(ehr):
    result = run(ehr, [*BOOK, call("fhir_create", resource=APPOINTMENT)])
    assert result.summary.duplicate_effects == 1
    assert result.checks[0].passed is False


def test_the_same_actions_leave_the_same_state(ehr):
    assert run(ehr, BOOK).final_state_hash == run(ehr, BOOK).final_state_hash


def test_a_bad_seed_names_its_file_and_fhir_path(tmp_path, open_world):
    root = write_ehr_world(tmp_path / "ehr")
    (root / "data" / "fhir" / "rivera.json").write_text(
        json.dumps({"resourceType": "Practitioner", "id": "rivera", "birthDate": "1980-02-30"})
    )
    with pytest.raises(SpecError, match=r"rivera.json: Practitioner.birthDate: "):
        open_world(root)


def test_a_check_with_an_unknown_search_parameter_is_refused_at_load(tmp_path, open_world):
    root = write_ehr_world(tmp_path / "ehr")
    task = root / "tasks" / "book.toml"
    task.write_text(task.read_text().replace('status = "booked"', 'colour = "blue"'))
    with pytest.raises(
        SpecError, match=r"book.toml: checks\[0\].search.colour: unknown search parameter"
    ):
        open_world(root)


def entry(method, url, resource=None, full_url=None):
    found = {"request": {"method": method, "url": url}}
    if resource is not None:
        found["resource"] = resource
    if full_url is not None:
        found["fullUrl"] = full_url
    return found


def test_a_transaction_links_new_entries_and_is_all_or_nothing(ehr):
    patient = {"resourceType": "Patient", "name": [{"family": "Okafor"}], "gender": "male"}
    encounter = {
        "resourceType": "Encounter",
        "status": "arrived",
        "class": {"system": "http://terminology.hl7.org/CodeSystem/v3-ActCode", "code": "EMER"},
        "subject": {"reference": "urn:uuid:walk-in"},
    }
    good = {
        "resourceType": "Bundle",
        "type": "transaction",
        "entry": [
            entry("POST", "Encounter", encounter),
            entry("POST", "Patient", patient, "urn:uuid:walk-in"),
        ],
    }
    failing = {
        "resourceType": "Bundle",
        "type": "transaction",
        "entry": [
            entry("POST", "Patient", {**patient, "name": [{"family": "Adeyemi"}]}),
            entry("DELETE", "Slot/nope"),
        ],
    }
    actions = [
        call("fhir_transaction", bundle=good),
        call("fhir_transaction", bundle=failing),
        search("Patient", family="Adeyemi"),
    ]
    done, refused, after = results(run(ehr, actions))
    made = done["result"]["entry"]
    assert made[0]["resource"]["subject"] == {"reference": "Patient/patient-0001"}
    assert made[1]["response"] == {
        "status": "201 Created",
        "location": "Patient/patient-0001/_history/1",
        "etag": 'W/"1"',
        "lastModified": "2026-03-02T09:01:00Z",
    }
    assert (refused["status"], refused["code"]) == ("ERROR", "not_found")
    assert refused["message"].startswith("Bundle.entry[1]: ")
    assert after["result"]["total"] == 0  # the transaction's first entry was undone too


def test_a_batch_answers_each_entry_on_its_own(ehr):
    batch = {
        "resourceType": "Bundle",
        "type": "batch",
        "entry": [
            entry("GET", "Patient/john-smith"),
            entry("GET", "Patient/nope"),
        ],
    }
    (done,) = results(run(ehr, [call("fhir_transaction", bundle=batch)]))
    found, missing = done["result"]["entry"]
    assert found["resource"]["id"] == "john-smith"
    assert missing["response"]["status"] == "404"


def test_a_search_is_paged_with_links_carrying_the_search(ehr):
    actions = [
        search("Patient", _count="1"),
        search("Patient", _count="1", _offset="1"),
        search("Patient", birthdate=["ge1960", "le1980"]),  # repeated: both hold
    ]
    first, second, between = results(run(ehr, actions))
    links = {link["relation"]: link["url"] for link in first["result"]["link"]}
    page = "http://ehr.local/fhir/Patient?_count=1&_offset="  # no HTTP request: the world's base
    assert links == {
        "self": page + "0",
        "first": page + "0",
        "next": page + "1",
        "last": page + "1",
    }
    assert [e["resource"]["id"] for e in first["result"]["entry"]] == ["john-smith"]
    assert [e["resource"]["id"] for e in second["result"]["entry"]] == ["zoe-muller"]
    assert {"relation": "previous", "url": page + "0"} in second["result"]["link"]
    assert [e["resource"]["id"] for e in between["result"]["entry"]] == ["john-smith"]


def test_a_lenient_search_leaves_out_what_it_refuses_and_says_so(ehr):
    lenient = call(
        "fhir_search",
        resource_type="Patient",
        params={"nickname": "x", "family": "smith"},
        lenient=True,
    )
    (found,) = results(run(ehr, [lenient]))
    match, outcome = found["result"]["entry"]
    assert (match["resource"]["id"], match["search"]["mode"]) == ("john-smith", "match")
    assert outcome["search"] == {"mode": "outcome"}
    issue = outcome["resource"]["issue"][0]
    assert (issue["severity"], issue["code"]) == ("warning", "not-supported")
    assert "nickname" in issue["diagnostics"]


def test_an_unknown_type_is_not_supported_and_a_second_delete_changes_nothing(ehr):
    actions = [
        search("Spaceship"),
        call("fhir_delete", resource_type="Slot", id="slot-wed"),
        call("fhir_delete", resource_type="Slot", id="slot-wed"),
        call("fhir_vread", resource_type="Slot", id="slot-wed", version=3),
    ]
    unknown, deleted, again, third = results(run(ehr, actions))
    assert (unknown["code"], deleted["status"]) == ("not_supported", "OK")
    assert again["result"]["issue"][0]["diagnostics"] == "Slot/slot-wed was deleted already"
    assert third["code"] == "not_found"  # the second delete wrote no version


def test_bundle_entries_answer_what_each_interaction_did(ehr):
    mrn = "identifier=http://genhosp.example/mrn|MRN0001"
    smith = {"resourceType": "Patient", "name": [{"family": "Smith"}]}
    batch = {
        "resourceType": "Bundle",
        "type": "batch",
        "entry": [
            {
                "resource": smith,
                "request": {"method": "POST", "url": "Patient", "ifNoneExist": mrn},
            },
            {
                "resource": {**smith, "id": "new-one"},
                "request": {"method": "PUT", "url": "Patient/new-one"},
            },
            {
                "resource": {**smith, "gender": "femal"},
                "request": {"method": "POST", "url": "Patient"},
            },
            {"resource": smith, "request": {"method": "PUT", "url": "Patient"}},
            {"request": {"method": "PATCH", "url": "Patient/john-smith"}},
        ],
    }
    (done,) = results(run(ehr, [call("fhir_transaction", bundle=batch)]))
    matched, created, invalid, no_id, patch = [e["response"] for e in done["result"]["entry"]]
    assert matched["status"] == "200 OK"  # If-None-Exist matched: nothing was created
    assert matched["location"] == "Patient/john-smith/_history/1"
    assert (created["status"], created["etag"]) == ("201 Created", 'W/"1"')
    assert (invalid["status"], invalid["outcome"]["issue"][0]["code"]) == ("422", "code-invalid")
    assert (no_id["status"], patch["status"]) == ("400", "400")


def test_a_resource_nested_too_deep_is_refused(ehr):
    deep: list = []
    for _ in range(200):
        deep = [deep]
    patient = {"resourceType": "Patient", "extension": deep}
    (refused,) = results(run(ehr, [call("fhir_create", resource=patient)]))
    assert (refused["code"], refused["message"]) == (
        "too_deep",
        "the body nests deeper than 64 levels",
    )
