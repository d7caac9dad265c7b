"""FHIR search matching over plain R4 resources: every parameter type with its modifiers and
prefixes, and unknown parameters refused."""

from __future__ import annotations

import pytest

from assay.world.services.healthcare.fhir.search import SearchError, matcher

PATIENT = {
    "resourceType": "Patient",
    "id": "zoe-muller",
    "meta": {"lastUpdated": "2026-03-01T08:00:00Z"},
    "identifier": [{"system": "http://genhosp.example/mrn", "value": "MRN0002"}],
    "name": [{"family": "Müller", "given": ["Zoë", "Anne"]}],
    "gender": "female",
    "birthDate": "1984-07-09",
}
OBSERVATION = {
    "resourceType": "Observation",
    "id": "hr-1",
    "status": "final",
    "code": {"coding": [{"system": "http://loinc.org", "code": "8867-4"}]},
    "subject": {"reference": "Patient/zoe-muller"},
    "effectiveDateTime": "2026-03-02T09:30:00Z",
    "valueQuantity": {
        "value": 72.4,
        "unit": "beats/min",
        "system": "http://unitsofmeasure.org",
        "code": "/min",
    },
}


def hits(resource, **params):
    return matcher(resource["resourceType"], params)(resource)


@pytest.mark.parametrize(
    ("params", "wanted"),
    [
        ({"identifier": "http://genhosp.example/mrn|MRN0002"}, True),
        ({"identifier": "MRN0002"}, True),
        ({"identifier": "http://other|MRN0002"}, False),
        ({"identifier": "|MRN0002"}, False),  # `|code`: only a code without a system
        ({"gender": "female"}, True),
        ({"gender": "male,female"}, True),  # a comma is OR
        ({"gender:not": "female"}, False),
        ({"gender:not": "male"}, True),
        ({"_id": "zoe-muller"}, True),
    ],
)
def test_token_matching(params, wanted):
    assert hits(PATIENT, **params) is wanted


def test_token_matches_codeable_concepts_by_system_and_code():
    assert hits(OBSERVATION, code="http://loinc.org|8867-4")
    assert hits(OBSERVATION, code="8867-4")
    assert not hits(OBSERVATION, code="http://snomed.info/sct|8867-4")
    assert hits(OBSERVATION, code="|8867-4") is False


@pytest.mark.parametrize(
    ("params", "wanted"),
    [
        ({"family": "muller"}, True),  # case- and accent-insensitive
        ({"family": "Mü"}, True),  # starts-with
        ({"family": "ller"}, False),
        ({"family:contains": "ller"}, True),
        ({"family:exact": "Müller"}, True),
        ({"family:exact": "muller"}, False),
        ({"given": "zoe"}, True),
        ({"name": "anne"}, True),  # name covers family and given
    ],
)
def test_string_matching(params, wanted):
    assert hits(PATIENT, **params) is wanted


@pytest.mark.parametrize(
    ("value", "wanted"),
    [("Patient/zoe-muller", True), ("zoe-muller", True), ("Patient/other", False), ("x", False)],
)
def test_reference_matching(value, wanted):
    assert hits(OBSERVATION, subject=value) is wanted
    assert hits(OBSERVATION, patient=value) is wanted


@pytest.mark.parametrize(
    ("value", "wanted"),
    [
        ("1984-07-09", True),
        ("1984-07", True),  # precision of the search: the month
        ("1984", True),
        ("1985", False),
        ("eq1984-07-09", True),
        ("ne1984-07-09", False),
        ("gt1984-07-08", True),
        ("gt1984-07-09", False),
        ("ge1984-07-09", True),
        ("lt1984-07-10", True),
        ("le1984-07-08", False),
        ("sa1983", True),
        ("eb1983", False),
    ],
)
def test_date_prefixes_and_precision(value, wanted):
    assert hits(PATIENT, birthdate=value) is wanted


def test_date_times_compare_at_the_precision_asked():
    assert hits(OBSERVATION, date="2026-03-02")
    assert hits(OBSERVATION, date="ge2026-03-02T09:00")
    assert not hits(OBSERVATION, date="gt2026-03-02")  # inside that day, not after it
    assert hits(PATIENT, _lastUpdated="lt2026-03-02")


@pytest.mark.parametrize(
    ("value", "wanted"),
    [
        ("72", True),  # eq within the precision given: 71.5 up to 72.5
        ("72.4", True),
        ("72.5", False),
        ("gt70", True),
        ("lt70", False),
        ("ge72.4", True),
        ("le72.3", False),
        ("ne72", False),
        ("72.4|http://unitsofmeasure.org|/min", True),
        ("72.4|http://unitsofmeasure.org|mg", False),
        ("72.4||beats/min", True),
        ("gt60|/min", True),
    ],
)
def test_quantity_prefixes_precision_and_units(value, wanted):
    assert hits(OBSERVATION, **{"value-quantity": value}) is wanted


def test_several_parameters_are_and():
    assert hits(OBSERVATION, code="8867-4", status="final", subject="zoe-muller")
    assert not hits(OBSERVATION, code="8867-4", status="amended")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"nickname": "x"}, "unknown search parameter 'nickname' for Patient"),
        ({"family:fuzzy": "x"}, "unknown modifier :fuzzy"),
    ],
)
def test_unknown_parameters_and_modifiers_are_refused(params, message):
    with pytest.raises(SearchError, match=message):
        matcher("Patient", params)


def test_a_number_that_is_not_one_is_refused():
    with pytest.raises(SearchError, match="not a number"):
        hits(OBSERVATION, **{"value-quantity": "gtabc"})


def test_control_parameters_do_not_filter():
    assert hits(PATIENT, _count="1", _sort="-_lastUpdated")
