"""The same FHIR actions leave the same ids, versions and final-state hash on SQLite and on
PostgreSQL (JSON kept canonical as TEXT, ids from counters, times from the world clock)."""

from __future__ import annotations

from healthkit import APPOINTMENT, write_ehr_world

from assay.runs import open_benchmark
from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.taskrun.agents.scripted import ActionsAgent


def call(tool, **args):
    return {"call": {"tool": tool, "args": args}}


NEW_PATIENT = {
    "resourceType": "Patient",
    "name": [{"family": "Okafor", "given": ["Chidi"]}],
    "gender": "male",
    "birthDate": "1977-05-14",
}
ACTIONS = [
    call("fhir_create", resource=APPOINTMENT),
    call(
        "fhir_transaction",
        bundle={
            "resourceType": "Bundle",
            "type": "transaction",
            "entry": [
                {
                    "fullUrl": "urn:uuid:0c3a-new",
                    "resource": NEW_PATIENT,
                    "request": {"method": "POST", "url": "Patient"},
                },
                {
                    "resource": {
                        "resourceType": "Observation",
                        "status": "final",
                        "code": {"coding": [{"system": "http://loinc.org", "code": "8867-4"}]},
                        "subject": {"reference": "urn:uuid:0c3a-new"},
                        "valueQuantity": {"value": 72, "unit": "/min"},
                    },
                    "request": {"method": "POST", "url": "Observation"},
                },
            ],
        },
    ),
    call("fhir_update", resource={**NEW_PATIENT, "gender": "other"}, conditional="family=okafor"),
    call("fhir_delete", resource_type="Appointment", id="appointment-0001"),
    call("fhir_search", resource_type="Observation", params={"subject": "patient-0001"}),
]


def outcome(benchmark):
    result = run_task(
        benchmark, benchmark.tasks["book"], ActionsAgent(ACTIONS), run_id=new_id("tr")
    )
    answers = [
        event.get("result")
        for step in result.trajectory["steps"]
        for event in step["events"]
        if event.get("type") == "tool_result"
    ]
    return result.final_state_hash, answers


def test_the_same_actions_leave_the_same_state_on_both_backends(tmp_path, request):
    root = write_ehr_world(tmp_path / "ehr")
    on_sqlite = open_benchmark(root)
    on_postgres = open_benchmark(root, world_db=request.getfixturevalue("postgres_url"))
    try:
        first, answers = outcome(on_sqlite)
        assert outcome(on_sqlite) == (first, answers)
        assert outcome(on_postgres) == (first, answers)
    finally:
        on_sqlite.close()
        on_postgres.close()
    made = answers[1]["entry"]
    assert [entry["response"]["location"] for entry in made] == [
        "Patient/patient-0001/_history/1",
        "Observation/observation-0001/_history/1",
    ]
    assert answers[2]["meta"] == {"versionId": "2", "lastUpdated": "2026-03-02T09:03:00Z"}
    (found,) = answers[4]["entry"]
    assert found["resource"]["subject"] == {"reference": "Patient/patient-0001"}
