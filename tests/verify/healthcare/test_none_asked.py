"""A typed check can say "none": `count = 0` or `absent = true` passes with 1 when nothing matched
and scores 0, naming how many, when something did; fields on nothing are refused at load."""

from __future__ import annotations

import pytest
from healthkit import (
    A04,
    APPOINTMENT,
    ROSTER,
    write_ehr_world,
    write_files_world,
    write_hl7_world,
    write_portal_world,
    write_x12_world,
)

from assay.errors import SpecError
from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.taskrun.agents.scripted import ActionsAgent


def call(tool, **args):
    return {"call": {"tool": tool, "args": args}}


PA = {
    "patient_member_id": "W123456789",
    "procedure_code": "72148",
    "provider_npi": "1234567890",
    "diagnosis_codes": ["M54.5"],
}

# kind → (world writer, task, the check asking for none, the action that makes one match)
CASES = {
    "fhir": (
        write_ehr_world,
        "book",
        'assert = "fhir-resource-state"\nresource_type = "Appointment"\n'
        'search = { patient = "Patient/john-smith" }\nchanged = true',
        call("fhir_create", resource=APPOINTMENT),
    ),
    "hl7": (
        write_hl7_world,
        "walk-in",
        'assert = "hl7-structural"\ncorrelate_by = { "PID.3.1" = "MRN0042" }',
        call("hl7_send", message=A04),
    ),
    "portal": (
        write_portal_world,
        "prior-auth",
        'assert = "portal-state-match"\n'
        'correlate_by = { resource = "prior_auth", patient_member_id = "W123456789" }',
        call("portal_submit", resource="prior_auth", data=PA),
    ),
    "files": (
        write_files_world,
        "roster",
        'assert = "sftp-file-present"\nglob = "outbound/**"',
        call("files_write", path="outbound/roster/2026-03-02.csv", content=ROSTER),
    ),
    "x12": (
        write_x12_world,
        "eligibility",
        'assert = "x12-response"\ntransaction_set = "271"',
        call("x12_eligibility", member_id="W123456789", payer_id="ACME01", dob="1977-05-14"),
    ),
}


def with_none_check(world, task, body, asked):
    path = world / "tasks" / f"{task}.toml"
    check = f'\n[[checks]]\nname = "none asked"\ntype = "rule"\n{body}\n{asked}\n'
    path.write_text(path.read_text() + check)


def none_check(result):
    (check,) = (c for c in result.checks if c.name == "none asked")
    return check


@pytest.mark.parametrize("asked", ["count = 0", "absent = true"])
@pytest.mark.parametrize("kind", sorted(CASES))
def test_none_asked_passes_on_nothing_and_fails_on_one(tmp_path, open_world, kind, asked):
    writer, task, body, action = CASES[kind]
    root = writer(tmp_path / kind)
    with_none_check(root, task, body, asked)
    world = open_world(root)

    quiet = none_check(run_task(world, world.tasks[task], ActionsAgent([]), run_id=new_id("tr")))
    assert (quiet.passed, quiet.score) == (True, 1.0)
    assert quiet.details.endswith(f"matched, as {asked} asks")
    assert quiet.evidence["matched"] == 0

    busy = none_check(
        run_task(world, world.tasks[task], ActionsAgent([action]), run_id=new_id("tr"))
    )
    assert (busy.passed, busy.score) == (False, 0.0)
    assert busy.details.startswith("1 ") and busy.details.endswith(f"{asked} asks for none")
    assert busy.evidence["matched"] == 1


def test_changed_narrows_none_to_what_the_task_run_wrote(tmp_path, open_world):
    """A seed resource that matches is not "something the agent did" when changed = true."""
    root = write_ehr_world(tmp_path / "ehr")
    body = 'assert = "fhir-resource-state"\nresource_type = "Patient"\nchanged = true'
    with_none_check(root, "book", body, "count = 0")
    world = open_world(root)
    result = run_task(world, world.tasks["book"], ActionsAgent([]), run_id=new_id("tr"))
    assert none_check(result).passed
    assert "Patient written during the task run" in none_check(result).details


@pytest.mark.parametrize(
    ("asked", "message"),
    [
        (
            'count = 0\nfields = [{ path = "status", expected = "booked" }]',
            "count = 0 asks that nothing matches: fields cannot be checked on nothing",
        ),
        (
            'absent = true\nfields = [{ path = "status", expected = "booked" }]',
            "absent = true asks that nothing matches: fields cannot be checked on nothing",
        ),
        ("absent = true\ncount = 2", "absent = true asks that nothing matches; count = 2"),
    ],
)
def test_fields_on_nothing_are_refused_when_the_task_loads(tmp_path, open_world, asked, message):
    root = write_ehr_world(tmp_path / "ehr")
    body = 'assert = "fhir-resource-state"\nresource_type = "Appointment"'
    with_none_check(root, "book", body, asked)
    with pytest.raises(SpecError, match=r"book\.toml.*checks\[2\]") as refused:
        open_world(root)
    assert message in str(refused.value)


def test_hl7_valid_on_nothing_is_refused(tmp_path, open_world):
    root = write_hl7_world(tmp_path / "hl7")
    with_none_check(root, "walk-in", 'assert = "hl7-structural"\nvalid = true', "count = 0")
    with pytest.raises(SpecError, match="valid cannot be checked on nothing"):
        open_world(root)
