"""The shared file tree: seeds, writable globs, moves that keep the file, refusals that lose
nothing; and the sftp-file-present check per format — on both backends."""

from __future__ import annotations

import base64

import pytest
from healthkit import ROSTER, tool_results, write_files_world

from assay.errors import ServiceError
from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.taskrun.agents.scripted import ActionsAgent
from assay.verify.healthcare.formats import parsed, path_problem, value
from assay.world.services.healthcare.globs import matches


def call(tool, **args):
    return {"call": {"tool": tool, "args": args}}


REFERENCE = [
    call("files_write", path="outbound/roster/2026-03-02.csv", content=ROSTER),
    call("files_move", src="inbox/referrals/R-17.txt", dst="archive/R-17.txt"),
]


@pytest.fixture
def dropbox(tmp_path, open_world):
    return open_world(write_files_world(tmp_path / "dropbox"))


def run(world, actions):
    return run_task(world, world.tasks["roster"], ActionsAgent(actions), run_id=new_id("tr"))


def test_globs_cross_folders_only_with_two_stars():
    assert matches("outbound/**", "outbound/claims/a.x12")
    assert matches("outbound/claims/837P_20260302*.x12", "outbound/claims/837P_20260302_1.x12")
    assert not matches("outbound/*.x12", "outbound/claims/a.x12")
    assert not matches("archive/**", "inbox/archive/x")


def test_the_reference_passes_and_the_check_shows_the_matched_file(dropbox):
    result = run(dropbox, [call("files_list"), *REFERENCE])
    assert result.outcome == "verified"
    evidence = result.checks[0].evidence
    assert evidence["matched_paths"] == ["outbound/roster/2026-03-02.csv"]
    assert evidence["path"] == "outbound/roster/2026-03-02.csv" and len(evidence["sha256"]) == 64
    assert [item["path"] for item in evidence["field_results"]] == [
        "rows[member_id=W123456789].copay",
        "$count(rows)",
        "$count",
        "$changed",
    ]
    (listing, *_) = (event["result"] for event in tool_results(result))
    assert listing["files"] == [
        {
            "path": "inbox/referrals/R-17.txt",
            "size": 43,
            "sha256": listing["files"][0]["sha256"],
            "writable": False,
        }
    ]


def test_refusals_say_why_and_change_nothing(dropbox):
    huge = "x" * 2001
    result = run(
        dropbox,
        [
            call("files_write", path="inbox/referrals/R-18.txt", content="forged"),
            call("files_write", path="../etc/passwd", content="x"),
            call("files_write", path="outbound/big.txt", content=huge),
            call("files_delete", path="inbox/referrals/R-17.txt"),
            call("files_write", path="outbound/bin.dat", content="%%%", encoding="base64"),
            call("files_read", path="inbox/referrals/R-17.txt"),
        ],
    )
    events = tool_results(result)
    codes = [event.get("code") for event in events[:5]]
    assert codes == ["read_only", "bad_path", "too_large", "read_only", "bad_content"]
    assert "2001 bytes is more than the 2000" in events[2]["message"]
    assert events[5]["result"]["content"].startswith("Referral R-17")
    assert result.checks[0].details.startswith("no file matched outbound/roster/2026-03-02*.csv")


def test_a_deleted_file_no_longer_counts_and_binary_reads_back_as_base64(dropbox):
    blob = base64.b64encode(bytes(range(256))).decode()
    result = run(
        dropbox,
        [
            *REFERENCE,
            call("files_write", path="outbound/bin.dat", content=blob, encoding="base64"),
            call("files_read", path="outbound/bin.dat"),
            call("files_delete", path="archive/R-17.txt"),
        ],
    )
    read = tool_results(result)[3]["result"]
    assert (read["encoding"], read["content"], read["size"]) == ("base64", blob, 256)
    assert (result.checks[0].passed, result.checks[1].passed) == (True, False)
    assert "no file matched archive/R-17.txt" in result.checks[1].details


def test_formats_read_their_paths():
    assert value("json", parsed("json", b'{"a": [{"b": 7}]}'), "a[0].b") == 7
    rows = parsed("csv", ROSTER.encode())
    assert value("csv", rows, "rows[1].copay") == "40" and value("csv", rows, "$count(rows)") == 2
    assert value("csv", rows, "rows[member_id=NOPE].copay") is None
    assert value("text", parsed("text", b"a\nb\n"), "$count(lines)") == 2
    assert path_problem("csv", "copay") is not None and path_problem("hl7", "PID.5.1") is None
    assert path_problem("x12", "EB[EB01=B].07") is None and path_problem("x12", "EB.x") is not None


def test_folders_are_rows_that_reset_exactly_and_stay_until_removed(dropbox, reset):
    world = reset(dropbox.world)
    tree = world.services["sftp"]
    folders = world.db.rows("SELECT path, origin FROM sandbox_files WHERE kind = 'folder'")
    assert [row["path"] for row in folders] == ["archive", "inbox", "inbox/referrals", "outbound"]
    tree.request("move", {"src": "inbox/referrals/R-17.txt", "dst": "archive/R-17.txt"})
    assert tree.entry("inbox/referrals").kind == "folder"  # emptied, it is still there
    assert tree.request("mkdir", {"path": "outbound/claims"}) == {
        "path": "outbound/claims",
        "folder": True,
    }
    codes = []
    for operation, path in (
        ("mkdir", "outbound/claims"),
        ("mkdir", "inbox/new"),
        ("mkdir", "outbound/a/b"),
        ("rmdir", "archive"),
        ("write", "outbound/claims"),
    ):
        with pytest.raises(ServiceError) as refused:
            tree.request(operation, {"path": path, "content": "x"})
        codes.append(refused.value.code)
    assert codes == ["already_exists", "read_only", "not_found", "not_empty", "bad_path"]
    assert [item.name for item in tree.listing("outbound")] == ["claims"]
    assert [item["path"] for item in tree.request("list", {})["files"]] == ["archive/R-17.txt"]
    tree.request("rmdir", {"path": "outbound/claims"})
    assert tree.entry("outbound/claims") is None
    again = reset(dropbox.world)  # a fresh copy starts from the built state
    assert again.services["sftp"].entry("outbound/claims") is None
    assert again.services["sftp"].entry("inbox/referrals/R-17.txt").kind == "file"
