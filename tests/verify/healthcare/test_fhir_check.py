"""The fhir-resource-state check over a final state's FHIR rows: selection, items, evidence,
details, and the static proof of its search and paths."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from assay.errors import CheckError
from assay.formats.checks import FhirResourceStateCheck
from assay.verify.healthcare.fhir import compile_fhir_check, fhir_path, run_fhir_check
from assay.world.guard import QueryFailed
from assay.world.services.healthcare.fhir.fhirpath import syntax_problem
from assay.world.services.healthcare.fhir.params import known, searchable_types

COLUMNS = ["id", "resource", "last_updated", "created_turn", "version_id"]


def appointment(ident, display, start, status="booked"):
    return {
        "resourceType": "Appointment",
        "id": ident,
        "status": status,
        "start": start,
        "participant": [
            {"actor": {"reference": "Patient/john-smith"}, "status": "accepted"},
            {
                "actor": {"reference": "Practitioner/rivera", "display": display},
                "status": "accepted",
            },
        ],
    }


class Final:
    """A ReadView's `fetch` over fixed rows of sandbox_fhir_resources."""

    def __init__(self, rows, fail=False):
        self.rows, self.fail = rows, fail

    def fetch(self, sql, params):
        if self.fail:
            raise QueryFailed("no such table: sandbox_fhir_resources")
        assert params == {"type": "Appointment"}
        return COLUMNS, [
            (r["id"], json.dumps(r), stamp, turn, version) for r, stamp, turn, version in self.rows
        ]


def check(**more):
    spec = {
        "name": "booked",
        "assert": "fhir-resource-state",
        "resource_type": "Appointment",
        "search": {"patient": "Patient/john-smith", "status": "booked"},
        "fields": [
            {"path": "participant.1.actor.display", "expected": "Dr. Rivera"},
            {"path": "start", "expected": "2026-03-05T10:00:00Z"},
        ],
        **more,
    }
    return FhirResourceStateCheck.model_validate(spec)


def run(rows, **more):
    return run_fhir_check(check(**more), SimpleNamespace(final=Final(rows)))


THURSDAY, WEDNESDAY = "2026-03-05T10:00:00Z", "2026-03-04T10:00:00Z"


def test_dotted_paths_become_fhirpath_and_fhirpath_is_kept():
    assert fhir_path("participant.0.actor.display") == "participant[0].actor.display"
    assert fhir_path("name.0.given.1") == "name[0].given[1]"
    assert fhir_path("telecom.where(system='phone').value") == "telecom.where(system='phone').value"


def test_the_resource_with_most_fields_passing_is_chosen():
    rows = [
        (appointment("a-1", "Dr. Rivera", WEDNESDAY), "2026-03-02T09:05:00Z", 5, 1),
        (appointment("a-2", "Dr. Rivera", THURSDAY), "2026-03-02T09:01:00Z", 1, 1),
        (
            appointment("a-3", "Dr. Rivera", THURSDAY, status="cancelled"),
            "2026-03-02T09:09:00Z",
            9,
            1,
        ),
    ]
    result = run(rows)
    assert (result.passed, result.score) == (True, 1.0)
    assert result.evidence == {
        "resource_type": "Appointment",
        "search": {"patient": "Patient/john-smith", "status": "booked"},
        "matched": 2,
        "resource": "Appointment/a-2",
        "field_results": [
            {
                "path": "participant.1.actor.display",
                "expected": "Dr. Rivera",
                "actual": "Dr. Rivera",
                "passed": True,
            },
            {"path": "start", "expected": THURSDAY, "actual": THURSDAY, "passed": True},
        ],
    }


def test_ties_go_to_the_latest_update_then_the_greatest_id():
    rows = [
        (appointment("a-1", "Dr. Rivera", WEDNESDAY), "2026-03-02T09:01:00Z", 1, 1),
        (appointment("a-2", "Dr. Rivera", WEDNESDAY), "2026-03-02T09:07:00Z", 7, 1),
        (appointment("a-3", "Dr. Rivera", WEDNESDAY), "2026-03-02T09:03:00Z", 3, 1),
    ]
    assert run(rows).evidence["resource"] == "Appointment/a-2"
    same_time = [(r, "2026-03-02T09:01:00Z", t, v) for r, _, t, v in rows]
    assert run(same_time).evidence["resource"] == "Appointment/a-3"


def test_count_and_changed_are_items_of_the_score():
    seeded = (appointment("a-1", "Dr. Rivera", THURSDAY), "2026-03-01T00:00:00Z", 0, 1)
    twice = (appointment("a-2", "Dr. Rivera", THURSDAY), "2026-03-02T09:04:00Z", 4, 1)
    result = run([seeded, twice], count=1, changed=True)
    items = {item["path"]: item for item in result.evidence["field_results"]}
    assert items["$count"] == {"path": "$count", "expected": 1, "actual": 2, "passed": False}
    assert items["$changed"] == {
        "path": "$changed",
        "expected": True,
        "actual": True,
        "passed": True,
    }
    assert (result.passed, result.score) == (False, 0.75)
    assert "✗ $count: wanted 1, got 2" in result.details
    untouched = run([seeded], changed=True)
    assert untouched.evidence["field_results"][-1]["actual"] is False
    assert untouched.passed is False


def test_a_failed_field_is_named_in_the_details():
    result = run([(appointment("a-1", "Dr. Lee", THURSDAY), "2026-03-02T09:01:00Z", 1, 1)])
    assert (result.passed, result.score) == (False, 0.5)
    assert result.details.startswith("Appointment/a-1 matched; 1 of 2 fields passed")
    assert "✗ participant.1.actor.display: wanted Dr. Rivera, got Dr. Lee" in result.details


def test_no_match_scores_zero_and_says_which_search():
    rows = [(appointment("a-1", "Dr. Rivera", THURSDAY, status="proposed"), "x", 1, 1)]
    result = run(rows)
    assert (result.passed, result.score) == (False, 0.0)
    assert result.details == (
        'no Appointment matched search {"patient": "Patient/john-smith", "status": "booked"}'
    )
    assert (result.evidence["resource"], result.evidence["field_results"]) == (None, [])


def test_an_unreadable_store_is_a_check_error_not_a_fail():
    with pytest.raises(CheckError, match="the FHIR store could not be read"):
        run_fhir_check(check(), SimpleNamespace(final=Final([], fail=True)))


def test_the_static_proof_names_each_bad_field():
    assert compile_fhir_check(check()) == []
    assert compile_fhir_check(check(resource_type="Appointmnt")) == [
        ("resource_type", "'Appointmnt' is not a FHIR R4 resource type")
    ]
    bad = check(
        search={"patient": "x", "when": "2026"}, fields=[{"path": "start.where(", "expected": 1}]
    )
    problems = dict(compile_fhir_check(bad))
    assert problems["search.when"] == "unknown search parameter 'when' for Appointment"
    assert problems["fields[0].path"].startswith("not a FHIRPath: column 13: mismatched input")
    assert compile_fhir_check(check(search={"status:fuzzy": "booked"})) == [
        ("search.status:fuzzy", "unknown modifier :fuzzy on status")
    ]


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("start.where(", "column 13: mismatched input '<EOF>'"),
        ("name[0.family", "column 14: missing ']'"),
        ("start)", "column 6: unexpected ')'"),
        ("start..x", "column 7: extraneous input '.'"),
    ],
)
def test_fhirpath_syntax_errors_are_found_though_the_parser_recovers(path, problem):
    assert syntax_problem(path).startswith(problem)


def test_every_search_parameter_and_check_path_example_is_fhirpath():
    tables = [known(resource_type) for resource_type in searchable_types()]
    paths = {param.expression for table in tables for param in table.values() if param.expression}
    paths |= {"telecom.where(system='phone').value", "participant[0].actor.display"}
    assert {path: syntax_problem(path) for path in paths} == dict.fromkeys(paths)


def test_a_list_in_the_search_is_the_parameter_repeated():
    rows = [
        (appointment("a1", "Dr. Rivera", WEDNESDAY), "2026-03-02T09:00:00Z", 1, 1),
        (appointment("a2", "Dr. Rivera", THURSDAY), "2026-03-02T09:00:00Z", 1, 1),
    ]
    between = {"date": ["ge2026-03-05", "lt2026-03-06"], "status": "booked,cancelled"}
    done = run(rows, search=between, count=1)
    assert (done.passed, done.evidence["resource"]) == (True, "Appointment/a2")
    assert compile_fhir_check(check(search={"date": ["ge2026-03-05", "soon"]})) == [
        ("search.date", "'soon' is not a date (yyyy, yyyy-mm, yyyy-mm-dd or a dateTime)")
    ]


def test_a_check_on_any_r4_parameter_of_any_type_loads():
    on_task = check(resource_type="Task", search={"identifier": "http://genhosp.example/task|T-1"})
    assert compile_fhir_check(on_task) == []
    chained = check(search={"patient.birthdate": "lt1980", "_sort": "-date"})
    assert compile_fhir_check(chained) == []
