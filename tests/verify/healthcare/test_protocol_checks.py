"""The HL7, file and X12 checks are proved when a task loads: a bad path, glob or format path is a
SpecError naming the task and the field; `valid = true` checks HL7 structure with hl7apy."""

from __future__ import annotations

import pytest
from healthkit import A04, tool_results, write_files_world, write_hl7_world, write_x12_world

from assay.errors import SpecError
from assay.runs.plan import new_id
from assay.runs.taskrun import run_task
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
