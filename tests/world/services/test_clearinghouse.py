"""The X12 clearinghouse: 270/271 with AAA rejections, 276/277 from claims.csv, 837 → 999 (pyx12)
and 277CA; deterministic control numbers and dates; the x12-response check — on both backends."""

from __future__ import annotations

import pytest
from healthkit import claim_837, tool_results, write_x12_world

from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.taskrun.agents.scripted import ActionsAgent
from assay.world.services.healthcare.x12.paths import parse, read


def call(tool, **args):
    return {"call": {"tool": tool, "args": args}}


ASK = call("x12_eligibility", member_id="W123456789", payer_id="ACME01", dob="1977-05-14")


@pytest.fixture
def clearing(tmp_path, open_world):
    return open_world(write_x12_world(tmp_path / "clearing"))


def run(world, actions):
    task = world.tasks["eligibility"]
    return run_task(world, task, ActionsAgent(actions), run_id=new_id("tr"))


def test_eligibility_answers_a_271_with_benefits_and_the_check_passes(clearing):
    result = run(clearing, [ASK])
    (answer,) = (event["result"] for event in tool_results(result))
    assert answer["parsed"] == {
        "active": True,
        "member_id": "W123456789",
        "plan": "GOLD PPO",
        "copay": "25",
        "deductible": "1500",
        "coinsurance": "0.2",
    }
    document = parse(answer["raw"])
    assert read(document, "ISA.13") == "000000002"  # the 270 built from the fields took 1
    assert read(document, "ISA.09") == "260302" and read(document, "GS.04") == "20260302"
    assert result.outcome == "verified"
    evidence = result.checks[0].evidence
    assert (evidence["transaction_set"], evidence["control_number"]) == ("271", "000000002")
    assert [item["passed"] for item in evidence["field_results"]] == [True] * 4


def test_unknown_members_wrong_births_and_payers_get_aaa_rejections(clearing):
    result = run(
        clearing,
        [
            call("x12_eligibility", member_id="W000000000", payer_id="ACME01"),
            call("x12_eligibility", member_id="W123456789", payer_id="ACME01", dob="1980-01-01"),
            call("x12_eligibility", member_id="W123456789", payer_id="NOPE"),
            call("x12_eligibility", member_id="W555000111", payer_id="ACME01"),
        ],
    )
    unknown, birth, payer, inactive = (event["result"]["parsed"] for event in tool_results(result))
    assert (unknown["rejected"], birth["rejected"], payer["rejected"]) == ("75", "71", "79")
    assert inactive["active"] is False and "rejected" not in inactive
    check = result.checks[0]
    assert check.passed is False and check.score < 1  # the 271 for W123456789 was an AAA
    assert check.evidence["field_results"][0] == {
        "path": "EB[1].01",
        "expected": "1",
        "actual": None,
        "passed": False,
    }


def test_a_raw_270_is_read_and_a_broken_one_refused(clearing):
    raw = parse_ready_270()
    result = run(
        clearing,
        [call("x12_eligibility", raw_270=raw), call("x12_eligibility", raw_270="ISA*broken~")],
    )
    good, broken = tool_results(result)
    assert good["result"]["parsed"]["copay"] == "25"
    assert broken["code"] == "bad_x12" and "106-character ISA" in broken["message"]
    assert result.outcome == "verified"


def parse_ready_270() -> str:
    from healthkit import isa

    body = (
        "GS*HS*GENHOSP*CLEARINGHOUSE*20260302*0900*7*X*005010X279A1~ST*270*0001*005010X279A1~"
        "BHT*0022*13*R1*20260302*0900~HL*1**20*1~NM1*PR*2*ACME*****PI*ACME01~HL*2*1*21*1~"
        "NM1*1P*2*GENERAL HOSPITAL*****XX*1234567893~HL*3*2*22*0~"
        "NM1*IL*1*OKAFOR*CHIDI****MI*W123456789~DMG*D8*19770514~EQ*30~SE*11*0001~GE*1*7~"
    )
    return isa("GENHOSP", "CLEARINGHOUSE", "000000007") + body + "IEA*1*000000007~"


def test_claim_status_reads_claims_csv_and_unknown_claims_are_a4(clearing):
    result = run(
        clearing,
        [
            call("x12_claim_status", claim_id="PCN0042", member_id="W123456789", payer_id="ACME01"),
            call("x12_claim_status", claim_id="PCN0043", member_id="W123456789", payer_id="ACME01"),
            call("x12_claim_status", claim_id="PCN9999", member_id="W123456789", payer_id="ACME01"),
        ],
    )
    denied, paid, unknown = (event["result"]["parsed"] for event in tool_results(result))
    assert (denied["status_category"], denied["status_code"]) == ("F2", "88")
    assert (paid["status_category"], paid["paid"]) == ("F1", "120.5")
    assert unknown["status_category"] == "A4"


def test_an_837_is_answered_with_a_999_and_a_277ca(clearing):
    result = run(
        clearing,
        [
            call("x12_submit", raw_837=claim_837()),
            call("x12_submit", raw_837=claim_837(release=False)),
        ],
    )
    good, bad = (event["result"] for event in tool_results(result))
    assert good["accepted"] is True and "IK5*A" in good["raw"] and "AK9*A*1*1*1" in good["raw"]
    assert "STC*A1:20" in good["raw_277ca"] and "TRN*2*PCN0042" in good["raw_277ca"]
    assert bad["accepted"] is False and "IK5*R*5" in bad["raw"] and "IK3*CLM" in bad["raw"]
    assert any("CLM09" in line for line in bad["errors"])
    assert bad["raw_277ca"] is None  # a set the 999 rejects is not acknowledged by a 277CA


def test_a_service_type_that_is_no_x12_code_is_the_askers_error(clearing):
    result = run(
        clearing,
        [call("x12_eligibility", member_id="W123456789", payer_id="ACME01", service_type="0")],
    )
    (refused,) = tool_results(result)
    assert (refused["code"], refused["message"]) == (
        "bad_request",
        "the service type is not an X12 service type code",
    )
    assert result.outcome != "not_scored"


def test_a_bad_csv_row_is_refused_when_the_world_loads(tmp_path, open_world):
    from assay.errors import SpecError

    world = write_x12_world(tmp_path / "clearing")
    members = world / "data" / "x12" / "members.csv"
    members.write_text(members.read_text().replace(",true,Gold", ",yes,Gold"))
    with pytest.raises(SpecError, match=r"members.csv: line 2.active: must be true or false"):
        open_world(world)
