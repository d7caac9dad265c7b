"""Each kind of bad input reaches the user as one line naming file and field, and exit code 2."""

from __future__ import annotations

import sys

import pytest
from worldkit import BASIC_TASK, DESK_WORLD, write_world

from assay.cli.app import run_app


def task_with(check: str) -> dict[str, str]:
    return {
        "t": f'title = "t"\nrole = "desk"\n[customer]\nrequest = "r"\n[[checks]]\nname = "c"\n{check}\n'
    }


CASES = {
    "missing world.toml": (lambda root: root.mkdir(), "world.toml: file not found"),
    "unknown key": (
        lambda root: write_world(root, tasks={"t": 'colour = "red"\n' + BASIC_TASK}),
        "tasks/t.toml: colour: unknown key",
    ),
    "unknown tool": (
        lambda root: write_world(
            root, tasks={"t": BASIC_TASK.replace('"add_note"', '"add_notes"')}
        ),
        "tasks/t.toml: solution.steps[0].call: unknown tool 'add_notes'",
    ),
    "unknown role": (
        lambda root: write_world(
            root, tasks={"t": BASIC_TASK.replace('role = "desk"', 'role = "x"')}
        ),
        "tasks/t.toml: role: unknown role 'x'",
    ),
    "unknown verifier": (
        lambda root: write_world(root, tasks=task_with('assert = "python"\nverifier = "V"')),
        "tasks/t.toml: checks[0].verifier: unknown verifier 'V'",
    ),
    "sql that does not parse": (
        lambda root: write_world(root, tasks=task_with('sql = "SELEC 1"')),
        "tasks/t.toml: checks[0].sql: SQL does not parse",
    ),
    "two statements": (
        lambda root: write_world(root, tasks=task_with('sql = "SELECT 1; SELECT 2"')),
        "tasks/t.toml: checks[0].sql: SQL holds 2 statements",
    ),
    "a write": (
        lambda root: write_world(root, tasks=task_with('sql = "UPDATE notes SET text = 1"')),
        "tasks/t.toml: checks[0].sql: SQL is an UPDATE statement",
    ),
    "a data-modifying CTE": (
        lambda root: write_world(
            root, tasks=task_with('sql = "WITH d AS (DELETE FROM notes RETURNING *) SELECT 1"')
        ),
        "tasks/t.toml: checks[0].sql: SQL contains DELETE",
    ),
    "unknown comparison": (
        lambda root: write_world(root, tasks=task_with('sql = "SELECT 1"\nop = "~"')),
        "tasks/t.toml: checks[0].op: unknown comparison '~'",
    ),
    "seed that fails": (
        lambda root: write_world(root, seed="INSERT INTO nope VALUES (1);"),
        "seed.sql: seed failed: no such table: nope",
    ),
    "unknown service kind": (
        lambda root: write_world(root, world_toml=DESK_WORLD.replace('"recorder"', '"tape"')),
        "world.toml: services.log: unknown service kind 'tape'",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_bad_world(tmp_path, monkeypatch, capsys, case):
    build, message = CASES[case]
    root = tmp_path / "w"
    build(root)
    monkeypatch.setattr(sys, "argv", ["assay", "run", str(root)])
    with pytest.raises(SystemExit) as done:
        run_app()
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ")
    assert message in err
    assert err.count("\n") == 1
