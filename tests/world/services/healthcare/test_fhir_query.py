"""`select`, R4 search as the server runs it over a few resources: AND of repeated parameters, OR
of commas, each type's forms, prefixes and modifiers, _sort, _include/_revinclude, _summary,
_elements, and what is refused."""

from __future__ import annotations

import pytest

from assay.world.services.healthcare.fhir.query import select, shaped
from assay.world.services.healthcare.fhir.search import SearchError
from assay.world.services.healthcare.fhir.validate import validated


def patient(ident, family, born, **more):
    return {
        "resourceType": "Patient",
        "id": ident,
        "meta": {"versionId": "1", "lastUpdated": "2026-03-01T08:00:00Z"},
        "name": [{"family": family, "given": ["Sam"]}],
        "birthDate": born,
        **more,
    }


MRN = "http://genhosp.example/mrn"
RESOURCES = {
    "Patient": [
        patient(
            "p1",
            "Alvarez",
            "1980-01-01",
            gender="female",
            identifier=[{"system": MRN, "value": "M1"}],
        ),
        patient(
            "p2", "Brown", "1985-06-15", gender="male", identifier=[{"system": MRN, "value": "M2"}]
        ),
        patient("p3", "Chen", "1989-12-31", gender="female", identifier=[{"value": "M3"}]),
        patient("p4", "Diaz", "1979-12-31", gender="male"),
        patient("p5", "Evans", "1991-01-01"),
        patient(
            "p6", "Adams", "1991", gender="other", telecom=[{"system": "phone", "value": "555"}]
        ),
    ],
    "Appointment": [
        {
            "resourceType": "Appointment",
            "id": "a1",
            "status": "booked",
            "start": "2026-03-05T10:00:00Z",
            "participant": [
                {"actor": {"reference": "Patient/p1"}, "status": "accepted"},
                {"actor": {"reference": "Practitioner/dr"}, "status": "accepted"},
            ],
        },
        {
            "resourceType": "Appointment",
            "id": "a2",
            "status": "cancelled",
            "start": "2026-03-06T10:00:00+02:00",
            "participant": [
                {
                    "actor": {"reference": "http://ehr.example/fhir/Patient/p2"},
                    "status": "accepted",
                }
            ],
        },
    ],
    "Practitioner": [{"resourceType": "Practitioner", "id": "dr", "name": [{"family": "Rivera"}]}],
    "Observation": [
        {
            "resourceType": "Observation",
            "id": "bp",
            "status": "final",
            "code": {
                "coding": [{"system": "http://loinc.org", "code": "85354-9"}],
                "text": "Blood pressure",
            },
            "subject": {"reference": "Patient/p1"},
            "effectivePeriod": {"start": "2026-03-01T09:00:00Z", "end": "2026-03-01T09:30:00Z"},
            "component": [
                {
                    "code": {"coding": [{"system": "http://loinc.org", "code": "8480-6"}]},
                    "valueQuantity": {
                        "value": 120,
                        "unit": "mmHg",
                        "system": "http://unitsofmeasure.org",
                        "code": "mm[Hg]",
                    },
                },
                {
                    "code": {"coding": [{"system": "http://loinc.org", "code": "8462-4"}]},
                    "valueQuantity": {
                        "value": 80,
                        "unit": "mmHg",
                        "system": "http://unitsofmeasure.org",
                        "code": "mm[Hg]",
                    },
                },
            ],
        }
    ],
    "Task": [
        {
            "resourceType": "Task",
            "id": "t1",
            "status": "requested",
            "intent": "order",
            "identifier": [{"system": "http://genhosp.example/task", "value": "T-1"}],
            "for": {"reference": "Patient/p1"},
            "meta": {"profile": ["http://genhosp.example/fhir/StructureDefinition/intake"]},
        }
    ],
}


def ids(resource_type, **params):
    found = select(lambda kind: RESOURCES.get(kind, []), resource_type, params)
    return [resource["id"] for resource in found.matches]


@pytest.mark.parametrize(
    ("params", "wanted"),
    [
        ({"birthdate": ["ge1980-01-01", "le1990-12-31"]}, ["p1", "p2", "p3"]),  # repeated: AND
        ({"birthdate": "1980,1991"}, ["p1", "p5", "p6"]),  # comma: OR; a year is the whole year
        ({"birthdate": "eq1991"}, ["p5", "p6"]),
        ({"birthdate": "1991-01"}, ["p5"]),  # p6's 1991 is not inside January
        ({"birthdate": "ne1991"}, ["p1", "p2", "p3", "p4"]),
        ({"birthdate": "gt1989-12-31"}, ["p5", "p6"]),
        ({"birthdate": "lt1980-01-01"}, ["p4"]),
        ({"birthdate": "sa1989"}, ["p5", "p6"]),
        ({"birthdate": "eb1980"}, ["p4"]),
        ({"birthdate": "ap1990"}, ["p3", "p5", "p6"]),  # a tenth of the year either side
        ({"birthdate": "ge1991-06"}, ["p6"]),  # 1991 reaches past June: p6 may be after it
    ],
)
def test_date_prefixes_compare_ranges_at_their_precision(params, wanted):
    assert ids("Patient", **params) == wanted


def test_dates_of_instants_and_periods():
    assert ids("Appointment", date="2026-03-06") == ["a2"]
    assert ids("Appointment", date="ge2026-03-06T08:00:00Z") == ["a2"]  # 10:00+02:00 is 08:00Z
    assert ids("Appointment", date="gt2026-03-06T08:00:00Z") == []
    assert ids("Observation", date="2026-03-01") == ["bp"]  # the period lies within that day
    assert ids("Observation", date="2026-03-01T09:15") == []  # the period is longer than a minute
    assert ids("Observation", date="ap2026-03-01T09:15") == ["bp"]  # but overlaps it


@pytest.mark.parametrize("value", ["notadate", "2026-13-01", "1980-01-01T25:00", "gt", "1980-1-1"])
def test_an_unreadable_date_is_a_search_error(value):
    with pytest.raises(SearchError, match="not a date"):
        ids("Patient", birthdate=value)


@pytest.mark.parametrize(
    ("params", "wanted"),
    [
        ({"identifier": f"{MRN}|"}, ["p1", "p2"]),  # any code of that system
        ({"identifier": "|M3"}, ["p3"]),  # that code without a system
        ({"identifier": f"{MRN}|M2"}, ["p2"]),
        ({"identifier": "M1,M3"}, ["p1", "p3"]),
        ({"gender:not": "male"}, ["p1", "p3", "p5", "p6"]),  # :not includes those without one
        ({"phone": "555"}, ["p6"]),
        ({"gender:missing": "true"}, ["p5"]),
        ({"gender:missing": "false", "family": "a"}, ["p1", "p6"]),
        ({"family": "alv"}, ["p1"]),  # starts with, whatever the case
        ({"family:exact": "alvarez"}, []),
        ({"family:exact": "Alvarez"}, ["p1"]),
        ({"name:contains": "VAN"}, ["p5"]),
        ({"name": "sam", "_id": "p2,p3"}, ["p2", "p3"]),
    ],
)
def test_tokens_and_strings(params, wanted):
    assert ids("Patient", **params) == wanted


def test_token_text_and_of_type():
    assert ids("Observation", **{"code:text": "blood"}) == ["bp"]
    assert ids("Observation", **{"code:text": "pressure"}) == []
    typed = {"type": {"coding": [{"system": "http://t", "code": "MR"}]}, "value": "M9"}
    RESOURCES["Patient"].append(patient("p9", "Ode", "2000", identifier=[typed]))
    try:
        assert ids("Patient", **{"identifier:of-type": "http://t|MR|M9"}) == ["p9"]
        assert ids("Patient", **{"identifier:of-type": "http://t|XX|M9"}) == []
    finally:
        RESOURCES["Patient"].pop()


@pytest.mark.parametrize(
    ("value", "wanted"),
    [
        ("Patient/p1", ["a1"]),
        ("p2", ["a2"]),  # a bare id
        ("http://ehr.example/fhir/Patient/p2", ["a2"]),
        ("http://elsewhere.example/Patient/p1", ["a1"]),  # any base ending in /Patient/p1
        ("Patient/p1,Patient/p2", ["a1", "a2"]),
    ],
)
def test_reference_forms(value, wanted):
    assert ids("Appointment", patient=value) == wanted


def test_reference_modifiers_and_chains():
    assert ids("Appointment", **{"actor:Practitioner": "dr"}) == ["a1"]
    assert ids("Appointment", **{"actor:Patient": "dr"}) == []
    assert ids("Appointment", **{"patient:Patient.family": "brown"}) == ["a2"]
    assert ids("Appointment", **{"patient.birthdate": "lt1982"}) == ["a1"]
    assert ids("Appointment", **{"practitioner.name": "rivera"}) == ["a1"]
    assert (
        ids("Task", **{"patient:identifier": f"{MRN}|M1"}) == []
    )  # the reference has no identifier


def test_task_by_identifier_and_uri_below_and_above():
    assert ids("Task", identifier="http://genhosp.example/task|T-1") == ["t1"]
    profile = "http://genhosp.example/fhir/StructureDefinition/intake"
    assert ids("Task", _profile=profile) == ["t1"]
    assert ids("Task", _profile="http://genhosp.example/fhir") == []
    assert ids("Task", **{"_profile:below": "http://genhosp.example/fhir"}) == ["t1"]
    assert ids("Task", **{"_profile:above": f"{profile}/v2"}) == ["t1"]
    assert ids("Task", **{"_profile:above": "http://genhosp.example/fhir"}) == []


@pytest.mark.parametrize(
    ("params", "wanted"),
    [
        ({"component-code-value-quantity": "http://loinc.org|8480-6$gt110"}, ["bp"]),
        ({"component-code-value-quantity": "http://loinc.org|8480-6$lt110"}, []),  # 80 is diastolic
        ({"component-code-value-quantity": "8462-4$80||mm[Hg]"}, ["bp"]),
        ({"component-value-quantity": "120|http://unitsofmeasure.org|mm[Hg]"}, ["bp"]),
        ({"component-value-quantity": "le79.9"}, []),
        ({"component-value-quantity": "80"}, ["bp"]),
        ({"component-value-quantity": "80.4"}, []),  # 80.35 up to 80.45: 80 is outside
    ],
)
def test_composites_match_within_one_component(params, wanted):
    assert ids("Observation", **params) == wanted


def test_sort_by_any_parameter_with_ties_by_id():
    assert ids("Patient", _sort="-birthdate,family") == ["p6", "p5", "p3", "p2", "p1", "p4"]
    assert ids("Patient", _sort="family") == ["p6", "p1", "p2", "p3", "p4", "p5"]
    assert ids("Patient", _sort="gender,-_id") == ["p3", "p1", "p4", "p2", "p6", "p5"]


def test_include_and_revinclude():
    def search(resource_type, **params):
        return select(lambda kind: RESOURCES.get(kind, []), resource_type, params)

    booked = search("Appointment", _include="Appointment:patient")
    assert [r["id"] for r in booked.matches] == ["a1", "a2"]
    assert [r["id"] for r in booked.included] == ["p1", "p2"]
    both = search("Appointment", _include=["Appointment:patient", "Appointment:actor:Practitioner"])
    assert [r["id"] for r in both.included] == ["p1", "p2", "dr"]
    with_appointments = search("Patient", _id="p1,p3", _revinclude="Appointment:patient")
    assert [r["id"] for r in with_appointments.included] == ["a1"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"identifier:in": "http://vs"}, ":in is not supported"),
        ({"identifier:below": "x"}, ":below is not supported"),
        ({"family:fuzzy": "x"}, "unknown modifier :fuzzy"),
        ({"nickname": "x"}, "unknown search parameter 'nickname' for Patient"),
        ({"_has:Observation:patient:code": "x"}, "_has"),
        ({"_text": "asthma"}, "not supported"),
        ({"_include": "*"}, "wildcard"),
        ({"_include": "Appointment:patient"}, "include from the searched type Patient"),
        ({"_include:iterate": "Patient:link"}, ":iterate is not supported"),
        ({"_sort": "nickname"}, "unknown search parameter 'nickname'"),
        ({"_summary": "maybe"}, "_summary: use one of"),
        ({"_total": "all"}, "_total: use one of"),
        ({"gender:missing": "yes"}, "use true or false"),
        ({"general-practitioner.nickname": "x"}, "no target type"),
    ],
)
def test_what_is_refused(params, message):
    with pytest.raises(SearchError, match=message):
        ids("Patient", **params)


def test_summary_and_elements_shape_a_valid_subset():
    def search(**params):
        return select(lambda kind: RESOURCES.get(kind, []), "Observation", params)

    counted = search(_summary="count", _total="estimate")
    assert (counted.summary, counted.total, len(counted.matches)) == ("count", "estimate", 1)
    observation = RESOURCES["Observation"][0]
    summary = shaped(observation, search(_summary="true"))
    assert "component" in summary and "status" in summary
    assert summary["meta"]["tag"][-1]["code"] == "SUBSETTED"
    text = shaped(observation, search(_summary="text"))
    assert set(text) == {"resourceType", "id", "meta", "status", "code"}  # the mandatory stay
    data = shaped(
        {**observation, "text": {"status": "generated", "div": "<div/>"}}, search(_summary="data")
    )
    assert "text" not in data and "component" in data
    elements = shaped(observation, search(_elements="subject"))
    assert set(elements) == {"resourceType", "id", "meta", "status", "code", "subject"}
    assert shaped(observation, search()) is observation
    for cut in (summary, text, data, elements):
        validated(cut, None)
