"""The same HL7 sends, file writes and X12 pairs leave the same answers and the same final-state
hash on SQLite and on PostgreSQL (control numbers from counters, times from the world clock, file
bytes as BLOB / BYTEA)."""

from __future__ import annotations

import base64

import pytest
from healthkit import A04, ROSTER, claim_837, write_files_world, write_hl7_world, write_x12_world

from assay.runs import open_benchmark
from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.taskrun.agents.scripted import ActionsAgent


def call(tool, **args):
    return {"call": {"tool": tool, "args": args}}


CASES = {
    "hl7": (write_hl7_world, "walk-in", [call("hl7_send", message=A04), call("hl7_inbox")]),
    "files": (
        write_files_world,
        "roster",
        [
            call("files_write", path="outbound/roster/2026-03-02.csv", content=ROSTER),
            call(
                "files_write",
                path="outbound/b.bin",
                content=base64.b64encode(b"\x00\xff").decode(),
                encoding="base64",
            ),
            call("files_move", src="inbox/referrals/R-17.txt", dst="archive/R-17.txt"),
            call("files_read", path="outbound/b.bin"),
        ],
    ),
    "x12": (
        write_x12_world,
        "eligibility",
        [
            call("x12_eligibility", member_id="W123456789", payer_id="ACME01"),
            call("x12_claim_status", claim_id="PCN0042", member_id="W123456789"),
            call("x12_submit", raw_837=claim_837()),
        ],
    ),
}


def outcome(benchmark, task, actions):
    result = run_task(benchmark, benchmark.tasks[task], ActionsAgent(actions), run_id=new_id("tr"))
    answers = [
        event.get("result")
        for step in result.trajectory["steps"]
        for event in step["events"]
        if event.get("type") == "tool_result"
    ]
    return result.final_state_hash, answers


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_same_actions_leave_the_same_state_on_both_backends(tmp_path, request, case):
    writer, task, actions = CASES[case]
    root = writer(tmp_path / case)
    on_sqlite = open_benchmark(root)
    on_postgres = open_benchmark(root, world_db=request.getfixturevalue("postgres_url"))
    try:
        first, answers = outcome(on_sqlite, task, actions)
        assert all(answer is not None for answer in answers)
        assert outcome(on_sqlite, task, actions) == (first, answers)
        assert outcome(on_postgres, task, actions) == (first, answers)
    finally:
        on_sqlite.close()
        on_postgres.close()
