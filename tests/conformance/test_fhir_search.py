"""R4 search as fhirpy, a real FHIR client, meets it: a running `assay serve` over a world with a
FHIR server; every answer validates as an R4 Bundle with fhir.resources."""

from __future__ import annotations

import json
import textwrap

import httpx
import pytest
from apikit import KEY, Server, bearer
from fhirpy import SyncFHIRClient
from fhirpy.base.exceptions import OperationOutcome

from assay.world.services.healthcare.fhir.validate import model_class

WORLD = """
name = "fhirsearch"
version = "1"
clock = "2026-03-02T09:00:00Z"

[database]
schema = "schema.sql"

[services.ehr]
kind = "fhir"
seed = ["data/*.json"]
base_url = "http://ehr.search.example/fhir"

[roles.clerk]
tools = ["fhir_read", "fhir_search"]
"""
TASK = """
title = "Look around"
role = "clerk"
max_turns = 200

[customer]
request = "Find the patients born in the 1980s."

[[checks]]
name = "Ada is still there"
assert = "fhir-resource-state"
resource_type = "Patient"
search = { birthdate = ["ge1980-01-01", "le1990-12-31"], family = "alvarez" }
count = 1
"""
MRN = "http://genhosp.example/mrn"


def patient(ident: str, family: str, born: str, **more) -> dict:
    return {
        "resourceType": "Patient",
        "id": ident,
        "name": [{"family": family, "given": ["Sam"]}],
        "birthDate": born,
        **more,
    }


SEEDS = [
    patient(
        "p1", "Alvarez", "1980-01-01", gender="female", identifier=[{"system": MRN, "value": "M1"}]
    ),
    patient(
        "p2", "Brown", "1985-06-15", gender="male", identifier=[{"system": MRN, "value": "M2"}]
    ),
    patient(
        "p3", "Chen", "1989-12-31", gender="female", identifier=[{"system": MRN, "value": "M3"}]
    ),
    patient(
        "p4",
        "Diaz",
        "1979-12-31",
        gender="male",
        identifier=[{"system": "http://other", "value": "X"}],
    ),
    patient("p5", "Evans", "1991-01-01"),
    patient("p6", "Adams", "1991-01-01", gender="other"),
    {"resourceType": "Practitioner", "id": "dr", "name": [{"family": "Rivera"}]},
    {
        "resourceType": "Appointment",
        "id": "a1",
        "status": "booked",
        "start": "2026-03-05T10:00:00Z",
        "end": "2026-03-05T10:30:00Z",
        "participant": [
            {"actor": {"reference": "Patient/p1"}, "status": "accepted"},
            {"actor": {"reference": "Practitioner/dr"}, "status": "accepted"},
        ],
    },
    {
        "resourceType": "Appointment",
        "id": "a2",
        "status": "booked",
        "start": "2026-03-06T10:00:00Z",
        "end": "2026-03-06T10:30:00Z",
        "participant": [
            {
                "actor": {"reference": "http://ehr.search.example/fhir/Patient/p2"},
                "status": "accepted",
            }
        ],
    },
    {
        "resourceType": "Task",
        "id": "t1",
        "status": "requested",
        "intent": "order",
        "identifier": [{"system": "http://genhosp.example/task", "value": "T-1"}],
        "for": {"reference": "Patient/p1"},
    },
]


@pytest.fixture(scope="module")
def fhir(tmp_path_factory, assay_home):
    """fhirpy's client on the FHIR endpoint of a started task run of a served world."""
    root = tmp_path_factory.mktemp("fhirsearch")
    (root / "world.toml").write_text(textwrap.dedent(WORLD), encoding="utf-8")
    (root / "schema.sql").write_text("CREATE TABLE notes (id INTEGER PRIMARY KEY);\n")
    (root / "data").mkdir()
    bundle = {
        "resourceType": "Bundle",
        "type": "collection",
        "entry": [{"resource": r} for r in SEEDS],
    }
    (root / "data" / "seed.json").write_text(json.dumps(bundle), encoding="utf-8")
    (root / "tasks").mkdir()
    (root / "tasks" / "look.toml").write_text(textwrap.dedent(TASK), encoding="utf-8")
    server = Server(root / "records.db", assay_home, "--worlds", str(root)).start()
    try:
        with httpx.Client(base_url=server.url, timeout=30) as api:
            made = api.post(
                "/v1/benchmark-runs", json={"benchmark": "fhirsearch@1"}, headers=bearer(KEY)
            )
            assert made.status_code == 201, made.text
            run = made.json()
            headers = bearer(run["bearer_token"])
            started = api.post(run["task_runs"][0]["start_url"], headers=headers)
            assert started.status_code < 300, started.text
        base = server.url + run["endpoints"]["fhir"]
        yield SyncFHIRClient(base, authorization=headers["Authorization"])
    finally:
        server.stop()


def bundle(search) -> dict:
    """The searchset as the client got it, checked as an R4 Bundle."""
    raw = search.fetch_raw()
    data = json.loads(json.dumps(raw, default=lambda resource: resource.serialize()))
    model_class("Bundle").model_validate(data)
    return data


def ids(search, mode: str = "match") -> list[str]:
    return [e["resource"]["id"] for e in bundle(search)["entry"] if e["search"]["mode"] == mode]


def test_a_repeated_date_parameter_is_and(fhir):
    patients = fhir.resources("Patient")
    assert ids(patients.search(birthdate__ge="1980-01-01", birthdate__le="1990-12-31")) == [
        "p1",
        "p2",
        "p3",
    ]
    assert ids(patients.search(birthdate=["ge1980-01-01", "le1990-12-31"])) == ["p1", "p2", "p3"]
    assert ids(patients.search(birthdate="1991")) == ["p5", "p6"]


def test_tokens_by_system_code_and_missing(fhir):
    patients = fhir.resources("Patient")
    assert ids(patients.search(identifier=f"{MRN}|")) == ["p1", "p2", "p3"]
    assert ids(patients.search(identifier=f"{MRN}|M2")) == ["p2"]
    assert ids(patients.search(gender__missing=True)) == ["p5"]
    assert ids(patients.search(gender__missing=False, gender__not="male")) == ["p1", "p3", "p6"]


def test_a_task_is_searched_by_identifier(fhir):
    tasks = fhir.resources("Task").search(identifier="http://genhosp.example/task|T-1")
    assert ids(tasks) == ["t1"]
    assert ids(fhir.resources("Task").search(patient="p1", status="requested")) == ["t1"]


def test_references_in_every_form_and_chained(fhir):
    appointments = fhir.resources("Appointment")
    assert ids(appointments.search(patient="Patient/p2")) == ["a2"]
    assert ids(appointments.search(patient="http://ehr.search.example/fhir/Patient/p1")) == ["a1"]
    assert ids(appointments.search(actor__Practitioner="dr")) == ["a1"]
    assert ids(appointments.search(patient__Patient__family="brown")) == ["a2"]


def test_sort_descending_then_by_a_second_key(fhir):
    ordered = fhir.resources("Patient").sort("-birthdate", "family")
    assert ids(ordered) == ["p6", "p5", "p3", "p2", "p1", "p4"]


def test_include_and_revinclude(fhir):
    booked = fhir.resources("Appointment").include("Appointment", "patient")
    assert (ids(booked), ids(booked, "include")) == (["a1", "a2"], ["p1", "p2"])
    ada = fhir.resources("Patient").search(_id="p1").revinclude("Appointment", "patient")
    assert (ids(ada), ids(ada, "include")) == (["p1"], ["a1"])


def test_summary_count_and_elements(fhir):
    counted = bundle(fhir.resources("Patient").search(_summary="count", gender="female"))
    assert (counted["total"], counted.get("entry", [])) == (2, [])
    cut = bundle(fhir.resources("Patient").search(_id="p2").elements("birthDate"))
    (entry,) = cut["entry"]
    assert set(entry["resource"]) == {"resourceType", "id", "meta", "birthDate"}
    assert {"code": "SUBSETTED"}.items() <= entry["resource"]["meta"]["tag"][-1].items()


@pytest.mark.parametrize(
    "params",
    [
        {"birthdate": "notadate"},
        {"nickname": "x"},
        {"identifier:in": "http://vs"},
        {"_include": "*"},
    ],
)
def test_what_it_cannot_read_is_a_400_operation_outcome(fhir, params):
    with pytest.raises(OperationOutcome) as refused:
        fhir.resources("Patient").search(
            **{k.replace(":", "__"): v for k, v in params.items()}
        ).fetch()
    assert refused.value.resource["resourceType"] == "OperationOutcome"
