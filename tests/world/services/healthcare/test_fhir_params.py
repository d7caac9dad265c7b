"""The generated R4 search parameter table: what a fresh run of the generator writes, every
expression compiles and runs with fhirpathpy, and the direct walk gives fhirpathpy's values."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from fhirpathpy import compile as compile_path
from fhirpathpy.models import models

from assay.world.services.healthcare.fhir import generate, r4_search
from assay.world.services.healthcare.fhir.params import known, searchable_types
from assay.world.services.healthcare.fhir.paths import _fhirpathpy, _plan, evaluator

SOURCE = Path(__file__).parent / "data" / "r4-search-parameters.json.gz"
CLINIC = Path(__file__).parents[4] / "worlds" / "clinic" / "data" / "fhir"


def every_param():
    for resource_type in searchable_types():
        for name, param in known(resource_type).items():
            yield resource_type, name, param


def test_the_table_is_what_the_generator_writes_from_its_source():
    if not SOURCE.exists():
        pytest.skip(f"{SOURCE} is absent: the table says it came from {r4_search.SOURCE_SHA256}")
    source = generate.read_source(SOURCE)
    assert hashlib.sha256(source).hexdigest() == r4_search.SOURCE_SHA256
    assert generate.render(source) == generate.TARGET.read_text(encoding="utf-8")


def test_a_file_that_is_not_the_bundle_is_one_line_and_exit_2(tmp_path, capsys):
    wrong = tmp_path / "wrong.json"
    wrong.write_text(
        '{"resourceType": "Bundle", "entry": [{"resource": {"resourceType": "Patient"}}]}'
    )
    before = generate.TARGET.read_text(encoding="utf-8")
    assert generate.main([str(wrong)]) == 2
    assert capsys.readouterr().err == (
        f"{wrong}: not R4's SearchParameter bundle: want a Bundle of SearchParameter resources\n"
    )
    assert generate.TARGET.read_text(encoding="utf-8") == before


def test_every_type_and_parameter_of_r4_is_there():
    assert len(searchable_types()) == 133
    assert sum(len(r4_search.PARAMS[t]) for t in searchable_types()) == 1700
    assert known("Task")["identifier"] == ("token", "Task.identifier", (), ())
    assert known("Patient")["birthdate"].expression == "Patient.birthDate"
    assert known("Observation")["patient"].targets == ("Patient",)
    assert {"_id", "_lastUpdated", "_tag", "_profile", "_security", "_source"} <= set(known("Slot"))
    assert known("Observation")["code-value-quantity"].components == (
        ("code", "token", "code"),
        ("value-quantity", "quantity", "valueQuantity"),
    )


def test_every_expression_compiles_and_runs_with_fhirpathpy():
    r4 = models["r4"]
    for resource_type, name, param in every_param():
        if not param.expression:
            assert param.type in ("special", "string", "token")  # `_text`, `_content`, `_query`
            continue
        assert "resolve()" not in param.expression, name  # fhirpathpy would refuse it at run time
        compiled = compile_path(param.expression, r4)
        assert compiled({"resourceType": resource_type, "id": "x"}, {}) is not None, name
        for _, _, component in param.components:
            assert compile_path(component, r4)({}, {"resource": {}}) == [], name


def test_references_of_one_type_are_told_apart_without_resolving():
    values = evaluator(known("Observation")["patient"].expression)
    observation = {
        "resourceType": "Observation",
        "subject": {"reference": "http://ehr.example/fhir/Patient/p1/_history/2"},
    }
    assert values(observation) == [observation["subject"]]
    assert values({**observation, "subject": {"reference": "Group/g1"}}) == []


def corpus() -> list[dict]:
    found = []
    for path in sorted(CLINIC.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        found += [e["resource"] for e in data["entry"]] if "entry" in data else [data]
    return [
        *found,
        {
            "resourceType": "Observation",
            "id": "bp",
            "effectivePeriod": {"start": "2026-03-01"},
            "valueQuantity": {"value": 1},
            "subject": {"reference": "http://x/Patient/1"},
            "component": [{"code": {"text": "a"}, "valueCodeableConcept": {"text": "b"}}],
        },
        {
            "resourceType": "Patient",
            "id": "p",
            "telecom": [{"system": "phone", "value": "1"}, {"system": "email", "value": "e"}],
            "name": [{"family": "F", "given": ["G"]}],
            "address": [{"city": "C"}],
            "deceasedDateTime": "2020",
        },
    ]


def shown(values: list) -> list[str]:
    return sorted({json.dumps(value, sort_keys=True, default=float) for value in values})


def test_the_direct_walk_gives_what_fhirpathpy_gives():
    resources = corpus()
    walked = 0
    for resource in resources:
        for name, param in known(resource["resourceType"]).items():
            if not param.expression or _plan(param.expression) is None:
                continue
            direct, reference = evaluator(param.expression), _fhirpathpy(param.expression)
            assert shown(direct(resource)) == shown(reference(resource)), name
            walked += 1
    assert walked > 500
