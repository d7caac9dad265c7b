"""The HL7, file and X12 checks are proved when a task loads: a bad path, glob or format path is a
SpecError naming the task and the field; `valid = true` checks HL7 structure with hl7apy."""

from __future__ import annotations

import pytest
from healthkit import A04, tool_results, write_files_world, write_hl7_world, write_x12_world

from assay.errors import SpecError
from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.taskrun.agents.scripted import ActionsAgent


def broken(task, old, new):
    task.write_text(task.read_text().replace(old, new))


@pytest.mark.parametrize(
    ("writer", "task", "old", "new", "where"),
    [
        (write_hl7_world, "walk-in", '"PID.5.1"', '"PID.five"', r"checks\[0\].fields\[0\].path"),
        (write_hl7_world, "walk-in", '"PID.3.1" =', '"PID-" =', r"checks\[0\].correlate_by"),
        (write_files_world, "roster", '"$count(rows)"', '"count"', r"checks\[0\].fields\[1\].path"),
        (write_files_world, "roster", 'glob = "outbound', 'glob = "/outbound', r"checks\[0\].path"),
        (write_x12_world, "eligibility", '"EB[EB01=B].07"', '"EB[B].07"', r"fields\[1\].path"),
    ],
)
def test_bad_paths_are_refused_when_the_task_loads(
    tmp_path, open_world, writer, task, old, new, where
):
    world = writer(tmp_path / "world")
    broken(world / "tasks" / f"{task}.toml", old, new)
    with pytest.raises(SpecError, match=where):
        open_world(world)


def test_valid_true_checks_the_structure_and_strict_interfaces_answer_ae(tmp_path, open_world):
    world = write_hl7_world(tmp_path / "interface")
    broken(world / "tasks" / "walk-in.toml", "count = 1", "count = 1\nvalid = true")
    interface = open_world(world)
    task = interface.tasks["walk-in"]
    no_evn = A04.replace("EVN|A04|20260302090000\r", "").replace("2.5.1", "2.5")
    send = [{"call": {"tool": "hl7_send", "args": {"message": no_evn}}}]
    result = run_task(interface, task, ActionsAgent(send), run_id=new_id("tr"))
    assert result.checks[0].evidence["field_results"][-1]["path"] == "$valid"
    assert result.checks[0].evidence["field_results"][-1]["actual"] is False

    strict = write_hl7_world(tmp_path / "strict")
    broken(strict / "world.toml", 'version = "2.5.1"', 'version = "2.5.1"\nvalidate = "strict"')
    strict_world = open_world(strict)
    result = run_task(
        strict_world, strict_world.tasks["walk-in"], ActionsAgent(send), run_id=new_id("tr")
    )
    (answer,) = (event["result"] for event in tool_results(result))
    assert answer["ack_code"] == "AE" and "structure invalid" in answer["errors"][0]


def test_an_x12_check_reads_the_ta1_an_interchange_asked_for(tmp_path, open_world):
    """ISA14 = 1 asks for an interchange acknowledgment: the check can select it as `TA1`; a
    transaction set the clearinghouse never answers (278) is refused when the task loads."""
    from healthkit import isa

    world = write_x12_world(tmp_path / "clearing")
    task = world / "tasks" / "eligibility.toml"
    task.write_text(
        task.read_text()
        + '\n[[checks]]\nname = "TA1 accepted"\nassert = "x12-response"\n'
        + 'transaction_set = "TA1"\nfields = [{ path = "TA1.04", expected = "A" }]\n'
    )
    body = (
        "GS*HS*GENHOSP*CLEARINGHOUSE*20260302*0900*7*X*005010X279A1~ST*270*0001*005010X279A1~"
        "BHT*0022*13*R1*20260302*0900~HL*1**20*1~NM1*PR*2*ACME*****PI*ACME01~HL*2*1*21*1~"
        "NM1*1P*2*GENERAL HOSPITAL*****XX*1234567893~HL*3*2*22*0~"
        "NM1*IL*1*OKAFOR*CHIDI****MI*W123456789~DMG*D8*19770514~EQ*30~SE*11*0001~GE*1*7~"
    )
    asking = isa("GENHOSP", "CLEARINGHOUSE", "000000007").replace("*0*T*:~", "*1*T*:~")
    raw = asking + body + "IEA*1*000000007~"
    clearing = open_world(world)
    send = [{"call": {"tool": "x12_eligibility", "args": {"raw_270": raw}}}]
    result = run_task(
        clearing, clearing.tasks["eligibility"], ActionsAgent(send), run_id=new_id("tr")
    )
    (ta1,) = (check for check in result.checks if check.name == "TA1 accepted")
    assert ta1.passed, ta1.details

    broken(task, 'transaction_set = "TA1"', 'transaction_set = "278"')
    with pytest.raises(SpecError, match=r"transaction_set"):
        open_world(world)
