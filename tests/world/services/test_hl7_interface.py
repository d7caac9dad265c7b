"""The HL7 v2 interface: ACK rules (AA, AE, AR), the inbox, duplicates, and the hl7-structural
check scoring what was sent — on both backends."""

from __future__ import annotations

import pytest
from healthkit import A04, tool_results, write_hl7_world

from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.taskrun.agents.scripted import ActionsAgent
from assay.world.services.healthcare.hl7.paths import BadPath, parse_path, read


def send(message):
    return {"call": {"tool": "hl7_send", "args": {"message": message}}}


@pytest.fixture
def interface(tmp_path, open_world):
    return open_world(write_hl7_world(tmp_path / "interface"))


def run(world, actions):
    return run_task(world, world.tasks["walk-in"], ActionsAgent(actions), run_id=new_id("tr"))


def test_paths_read_fields_components_repetitions_and_occurrences():
    raw = (
        A04.replace("MRN0042^^^GEN^MR", "MRN0042^^^GEN^MR~NHS9^^^NHS")
        + "\rOBX|1|NM|A\rOBX|2|NM|B||7"
    )
    assert read(raw, "PID.5.1") == read(raw, "PID-5.1") == "Okafor"
    assert read(raw, "MSH.9") == "ADT^A04^ADT_A01" and read(raw, "MSH-9.2") == "A04"
    assert read(raw, "MSH.1") == "|" and read(raw, "MSH.2") == "^~\\&"
    assert read(raw, "PID.3[2].1") == "NHS9" and read(raw, "PID.3.1") == "MRN0042"
    assert read(raw, "OBX[2].5") == "7" and read(raw, "OBX[3].5") is None
    assert read(raw, "PID.40") is None and read(raw, "ZZZ.1") is None
    for bad in ("PID", "PID.0", "pid.5", "PID.5.1.2.3"):
        with pytest.raises(BadPath):
            parse_path(bad)


def test_acks_accept_a_good_message_and_say_why_they_refuse_others(interface):
    no_control = A04.replace("|MSG0001|", "||")
    not_accepted = A04.replace("ADT^A04^ADT_A01", "MDM^T02")
    result = run(
        interface,
        [send(A04.replace("\r", "\n")), send("hello"), send(no_control), send(not_accepted)],
    )
    good, garbage, rejected, refused = (event["result"] for event in tool_results(result))
    assert (good["ack_code"], good["control_id"]) == ("AA", "MSG0001")
    assert good["ack"].split("\r")[1] == "MSA|AA|MSG0001"
    assert "|20260302090100||ACK^A04^ACK|ACK00001|" in good["ack"].split("\r")[0]
    # §2.9.2.1: a header that fails (no MSH, MSH-9 not accepted) rejects the message (AR); a
    # content error (MSH-10 missing) is an application error (AE); ERR-3 from table 0357
    assert garbage["ack_code"] == "AR" and "must start with an MSH segment" in garbage["errors"][0]
    assert garbage["ack"].split("\r")[1] == 'MSA|AR|""'
    assert (
        garbage["ack"].split("\r")[2].startswith("ERR||MSH|100^Segment sequence error^HL70357|E|")
    )
    assert rejected["ack_code"] == "AE" and "MSH-10" in rejected["errors"][0]
    assert "ERR||MSH^1^10|101^Required field missing^HL70357|E|" in rejected["ack"]
    assert refused["ack_code"] == "AR" and "MDM is not accepted" in refused["errors"][0]
    assert "|MSH^1^9^1^1|200^Unsupported message type^HL70357|E|" in refused["ack"]
    assert "ADT\\S\\A04" in refused["ack"]  # the ERR text escapes HL7's separators
    assert result.outcome == "verified"  # only AA messages count: the one good A04 passes
    evidence = result.checks[0].evidence
    assert (evidence["message_id"], evidence["control_id"], evidence["matched"]) == (
        2,
        "MSG0001",
        1,
    )
    assert [item["actual"] for item in evidence["field_results"]] == [
        "Okafor",
        "Chidi",
        "19770514",
        "E",
        1,
    ]


def test_the_same_message_again_with_a_new_time_and_control_id_is_a_duplicate(interface):
    again = A04.replace("MSG0001", "MSG0002").replace("20260302090000", "20260302091500")
    result = run(interface, [send(A04), send(again)])
    assert result.summary.duplicate_effects == 1
    assert result.outcome == "not_achieved"  # the A04 sent twice: count = 1 fails
    assert result.checks[0].evidence["field_results"][-1] == {
        "path": "$count",
        "expected": 1,
        "actual": 2,
        "passed": False,
    }


def test_every_send_is_kept_as_a_message_and_an_hl7_outbound_event(interface, reset):
    world = reset(interface.world)
    service = world.services["hl7"]
    world.turn = 3
    service.request("send", {"message": A04})
    (message,) = world.db.rows(
        "SELECT message_type, trigger_event, control_id, ack_code, turn FROM sandbox_hl7_messages "
        "WHERE direction = 'outbound'"
    )
    assert message == {
        "message_type": "ADT^A04",
        "trigger_event": "A04",
        "control_id": "MSG0001",
        "ack_code": "AA",
        "turn": 3,
    }
    (event,) = world.db.rows("SELECT type, turn, data FROM sandbox_events")
    assert (event["type"], event["turn"]) == ("hl7_outbound", 3)
    assert '"ack_code":"AA"' in event["data"]


def test_the_inbox_lists_the_seeded_result(interface):
    result = run(interface, [{"call": {"tool": "hl7_inbox", "args": {}}}])
    (inbox,) = (event["result"] for event in tool_results(result))
    (message,) = inbox["messages"]
    assert (message["message_type"], message["control_id"]) == ("ORU^R01", "LAB0001")
    assert message["raw"].count("\r") == 3 and "\n" not in message["raw"]


def test_no_accepted_message_scores_zero_and_lists_what_was_sent(interface):
    result = run(interface, [send(A04.replace("ADT^A04", "ADT^A01"))])
    check = result.checks[0]
    assert (check.passed, check.score) == (False, 0.0)
    assert "no outbound HL7 message matched correlate_by" in check.details
    assert "(1 outbound: ADT^A01)" in check.details
