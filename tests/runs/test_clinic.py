"""worlds/clinic: every task fair, and the reference verified on both backends."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

from assay.runs import prepare, run_benchmark
from assay.trust.validate import validate_world

CLINIC = Path(__file__).resolve().parents[2] / "worlds" / "clinic"


@pytest.fixture(scope="module")
def validation():
    return validate_world(CLINIC)


def test_every_clinic_task_is_proved_fair(validation):
    assert len(validation.tasks) >= 22
    assert [task.task_id for task in validation.tasks if not task.passed] == []


def test_the_tasks_cover_the_six_services():
    text = " ".join(path.read_text() for path in (CLINIC / "tasks").glob("*.toml"))
    kinds = ("fhir-resource-state", "hl7-structural", "portal-state-match", "sftp-file-present")
    for kind in (*kinds, "voice-transcript", "x12-response"):
        assert kind in text


def test_the_reference_verifies_every_task_and_noop_none(open_world):
    clinic = open_world(CLINIC)
    for agent, wanted in (("reference", "verified"), ("noop", None)):
        planned = prepare(clinic, agent, (), ("train", "dev"), 1)
        outcomes = {
            run.task_id: run.outcome for run in run_benchmark(clinic, agent, planned).task_runs
        }
        if wanted:
            assert set(outcomes.values()) == {wanted}
        else:
            assert "verified" not in outcomes.values()


def test_the_seed_files_are_what_the_seed_script_writes(tmp_path, monkeypatch):
    script = runpy.run_path(str(CLINIC / "tools" / "make_seed.py"))
    monkeypatch.setitem(script["main"].__globals__, "DATA", tmp_path)
    script["main"]()
    for written in tmp_path.iterdir():
        committed = CLINIC / "data" / "fhir" / written.name
        assert json.loads(written.read_text()) == json.loads(committed.read_text())


def test_a_typed_check_whose_service_the_world_lacks_is_refused_at_load(tmp_path, open_world):
    import shutil

    from assay.errors import SpecError

    world = shutil.copytree(CLINIC, tmp_path / "clinic")
    task = world / "tasks" / "order-cmp.toml"
    task.write_text(
        task.read_text().replace(
            'assert = "fhir-resource-state"', 'assert = "fhir-resource-state"\nservice = "lab"'
        )
    )
    with pytest.raises(
        SpecError,
        match=r"order-cmp.toml: checks\[0\].service: no fhir service named 'lab' \(this world has: ehr\)",
    ):
        open_world(world)
