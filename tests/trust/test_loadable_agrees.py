"""`assay run` and `assay validate` prove a task loadable in one place (`assay.world.loadable`):
they refuse the same tasks, in the same words, naming the same file and field."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from worldkit import BASIC_TASK, write_world

from assay.cli.app import run_app
from assay.trust.validate import validate_world

SQL = "sql = \"SELECT count(*) FROM notes WHERE text = 'hello'\"\nexpect = 1"
VOICE = 'assert = "voice-transcript"\ncontains = ["hello"]'

# A task that cannot be graded, as the edit of the desk world's task that makes it so, and the
# field and the start of the problem both commands name.
BAD_TASKS: dict[str, tuple[str, str, str]] = {
    "an unknown column": (SQL, 'sql = "SELECT nope FROM notes"\nexpect = 1', "checks[0].sql"),
    "an unknown table in a derived expect": (
        "expect = 1",
        'expect = { sql = "SELECT count(*) FROM nowhere" }',
        "checks[0].expect.sql",
    ),
    "an unknown verifier": (SQL, 'assert = "python"\nverifier = "VER-NONE"', "checks[0].verifier"),
    "a typed check reading a service the world lacks": (SQL, VOICE, "checks[0].assert"),
    "a typed check naming the wrong service": (
        SQL,
        f'{VOICE}\nservice = "email"',
        "checks[0].service",
    ),
    "a check that deletes": (SQL, 'sql = "DELETE FROM notes"\nexpect = 0', "checks[0].sql"),
    "a parameter without a value": (
        SQL,
        'sql = "SELECT count(*) FROM notes WHERE text = :text"\nexpect = 1',
        "checks[0].params",
    ),
    "rule checks only": ("expect = 1", 'expect = 1\ntype = "rule"', "checks"),
    "an unknown role": ('role = "desk"', 'role = "nobody"', "role"),
    "a fault on an unknown tool": (
        "[solution]",
        '[[faults]]\ntool = "no_such_tool"\ncall = 1\neffect = "fail"\n\n[solution]',
        "faults[0].tool",
    ),
    "expect = nan": ("expect = 1", "expect = nan", "checks[0].expect"),
}


def bad_world(root: Path, case: str) -> Path:
    old, new, _ = BAD_TASKS[case]
    task = BASIC_TASK.replace(old, new, 1)
    assert task != BASIC_TASK
    return write_world(root, tasks={"good": BASIC_TASK, "bad": task})


def run_refusal(monkeypatch, capsys, root: Path) -> str:
    monkeypatch.setattr(sys, "argv", ["assay", "run", str(root), "--store", str(root / "r.db")])
    with pytest.raises(SystemExit) as done:
        run_app()
    err = capsys.readouterr().err
    assert done.value.code == 2, err
    assert err.count("\n") == 1, err
    return err.removeprefix("error: ").strip()


@pytest.mark.parametrize("case", BAD_TASKS)
def test_run_and_validate_refuse_the_same_task_in_the_same_words(
    tmp_path, monkeypatch, capsys, case
):
    root = bad_world(tmp_path / "w", case)
    refused = run_refusal(monkeypatch, capsys, root)
    report = validate_world(root)
    tasks = {task.task_id: task for task in report.tasks}
    assert tasks["good"].passed
    bad = tasks["bad"]
    assert not bad.passed
    static = bad.proofs["static"]
    assert static.status == "failed"
    assert refused == f"{bad.file}: {static.reasons[0]}"
    assert static.reasons[0].startswith(f"{BAD_TASKS[case][2]}: ")
    assert bad.file.endswith("tasks/bad.toml")
