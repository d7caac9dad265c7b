"""The payer portal: keyed records, prior auths with determination rules, seeds; and the
portal-state-match check — on both backends."""

from __future__ import annotations

import re

import pytest
from healthkit import tool_results, write_portal_world

from assay.errors import SpecError
from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.taskrun.agents.scripted import ActionsAgent

PA = {
    "patient_member_id": "W123456789",
    "procedure_code": "72148",
    "provider_npi": "1234567890",
    "diagnosis_codes": ["M54.5"],
}


def submit(resource, data):
    return {"call": {"tool": "portal_submit", "args": {"resource": resource, "data": data}}}


@pytest.fixture
def payer(tmp_path, open_world):
    return open_world(write_portal_world(tmp_path / "payer"))


def run(payer, actions):
    task = payer.tasks["prior-auth"]
    return run_task(payer, task, ActionsAgent(actions), run_id=new_id("tr"))


results = tool_results


def test_a_prior_auth_gets_its_id_and_the_first_matching_determination(payer):
    second = {**PA, "procedure_code": "70553", "patient_member_id": "W555000111"}
    result = run(payer, [submit("prior_auth", PA), submit("prior_auth", second)])
    first, other = (event["result"] for event in results(result))
    assert first["key"] == "PA-0001" and first["data"]["status"] == "approved"
    assert first["data"]["auth_number"] == "AUTH-0001"
    assert (other["key"], other["data"]["status"]) == ("PA-0002", "need_more_info")
    assert other["data"]["reason"] == "attach the neurology note"
    assert result.outcome == "verified"
    evidence = result.checks[0].evidence
    assert (evidence["key"], evidence["matched"]) == ("PA-0001", 1)
    assert evidence["assertion_results"][-1] == {
        "path": "$changed",
        "expected": True,
        "actual": True,
        "passed": True,
    }


def test_missing_required_fields_are_refused_and_nothing_is_stored(payer):
    partial = {key: value for key, value in PA.items() if key != "diagnosis_codes"}
    result = run(payer, [submit("prior_auth", partial)])
    (event,) = results(result)
    assert (event["status"], event["code"]) == ("ERROR", "validation_failed")
    assert event["message"] == "missing: diagnosis_codes"
    assert result.outcome == "not_achieved"
    assert (
        result.checks[0].details == 'no prior_auth row matched {"patient_member_id": "W123456789"}'
    )


def test_the_same_prior_auth_twice_is_a_duplicate_effect_and_count_fails(payer):
    result = run(payer, [submit("prior_auth", PA), submit("prior_auth", PA)])
    assert result.summary.duplicate_effects == 1
    check = result.checks[0]
    assert check.passed is False
    assert {"path": "$count", "expected": 1, "actual": 2, "passed": False} in check.evidence[
        "assertion_results"
    ]


def test_seeded_records_read_and_search_and_update_versions(payer):
    actions = [
        {"call": {"tool": "portal_get", "args": {"resource": "patients", "key": "W123456789"}}},
        {
            "call": {
                "tool": "portal_search",
                "args": {"resource": "patients", "filters": {"plan": "SILVER HMO"}},
            }
        },
        {
            "call": {
                "tool": "portal_update",
                "args": {"resource": "patients", "key": "W555000111", "data": {"plan": "GOLD PPO"}},
            }
        },
        {"call": {"tool": "portal_get", "args": {"resource": "nothing", "key": "x"}}},
    ]
    got, found, updated, unknown = results(run(payer, actions))
    assert got["result"]["data"]["name"] == "Chidi Okafor"
    assert [row["key"] for row in found["result"]["rows"]] == ["W555000111"]
    assert (updated["result"]["version"], updated["result"]["data"]["name"]) == (2, "Ana Reyes")
    assert (unknown["status"], unknown["code"]) == ("ERROR", "not_found")


def test_reads_are_never_duplicate_effects(payer):
    get = {"call": {"tool": "portal_get", "args": {"resource": "patients", "key": "W123456789"}}}
    assert run(payer, [get, get]).summary.duplicate_effects == 0


def test_a_seed_row_without_its_key_names_the_file_and_line(tmp_path, open_world):
    root = write_portal_world(tmp_path / "payer")
    (root / "data" / "portal" / "patients.jsonl").write_text('{"member_id": "W1"}\n{"name": "x"}\n')
    with pytest.raises(SpecError, match=r"patients.jsonl: line 2: a row needs its key 'member_id'"):
        open_world(root)


def test_an_agent_cannot_approve_its_own_prior_auth_or_rename_a_record(payer):
    pending = {**PA, "procedure_code": "99999"}  # the default determination: pending
    actions = [
        submit("prior_auth", {**PA, "status": "approved"}),
        submit("prior_auth", pending),
        {
            "call": {
                "tool": "portal_update",
                "args": {
                    "resource": "prior_auth",
                    "key": "PA-0001",
                    "data": {"status": "approved", "auth_number": "AUTH-9"},
                },
            }
        },
        {
            "call": {
                "tool": "portal_update",
                "args": {
                    "resource": "patients",
                    "key": "W123456789",
                    "data": {"member_id": "W000"},
                },
            }
        },
    ]
    forged, made, approved, renamed = results(run(payer, actions))
    assert (forged["status"], forged["code"]) == ("ERROR", "read_only")
    assert made["result"]["data"]["status"] == "pending"
    assert (approved["code"], renamed["code"]) == ("read_only", "read_only")
    assert approved["message"] == "prior_auth: auth_number, status set by the portal alone"


@pytest.mark.parametrize(
    ("rule", "where", "problem"),
    [
        (
            '{ procedure_code = "72148", status = "maybe" }',
            "determinations[0].status",
            "must be one of approved, denied, pending, need_more_info",
        ),
        ('{ status = "approved" }', "determinations[0]", "names no field to match"),
    ],
)
def test_a_bad_determination_rule_names_world_toml_and_the_rule(
    tmp_path, open_world, rule, where, problem
):
    root = write_portal_world(tmp_path / "payer")
    toml = root / "world.toml"
    text = toml.read_text().replace(
        'determinations = [\n  { procedure_code = "72148", status = "approved", '
        'auth_number_prefix = "AUTH" },',
        f"determinations = [\n  {rule},",
    )
    assert text != toml.read_text()
    toml.write_text(text)
    wanted = f"world.toml: services.payer_portal.resources.prior_auth.{where}: {problem}"
    with pytest.raises(SpecError, match=re.escape(wanted)):
        open_world(root)


def test_changing_a_resource_key_in_world_toml_rebuilds_the_starting_state(tmp_path, open_world):
    root = write_portal_world(tmp_path / "payer")
    get = {"call": {"tool": "portal_get", "args": {"resource": "patients", "key": "Ana Reyes"}}}
    (before,) = results(run(open_world(root), [get]))
    toml = root / "world.toml"
    toml.write_text(toml.read_text().replace('key = "member_id"\n', 'key = "name"\n', 1))
    (after,) = results(run(open_world(root), [get]))
    assert (before["status"], after["status"]) == ("ERROR", "OK")
    assert after["result"]["data"]["member_id"] == "W555000111"
