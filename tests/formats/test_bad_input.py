"""Every kind of bad world or task file gets one clear error naming the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest
from worldkit import BASIC_TASK, DESK_WORLD, write_world

from assay.errors import SpecError
from assay.runs import open_benchmark


def task_with_check(check: str) -> str:
    return f"""
title = "t"
role = "desk"
[customer]
request = "r"
[[checks]]
name = "c"
{check}
"""


def load_error(root: Path) -> SpecError:
    with pytest.raises(SpecError) as caught:
        open_benchmark(root)
    return caught.value


def test_missing_world_toml(tmp_path):
    error = load_error(tmp_path)
    assert str(error).endswith("world.toml: file not found: a world directory needs world.toml")


def test_world_is_not_a_directory(tmp_path):
    error = load_error(tmp_path / "nowhere")
    assert "not a directory" in str(error)


def test_unknown_key_in_world_toml(tmp_path):
    root = write_world(tmp_path, world_toml='colour = "blue"\n' + DESK_WORLD)
    error = load_error(root)
    assert (error.file.endswith("world.toml"), error.field, error.message) == (
        True,
        "colour",
        "unknown key",
    )


def test_unknown_key_in_task(tmp_path):
    root = write_world(
        tmp_path, tasks={"t": BASIC_TASK.replace('role = "desk"', 'role = "desk"\nrol = "x"')}
    )
    error = load_error(root)
    assert error.file.endswith("tasks/t.toml")
    assert (error.field, error.message) == ("rol", "unknown key")


def test_unknown_key_in_a_check(tmp_path):
    root = write_world(tmp_path, tasks={"t": task_with_check('sql = "SELECT 1"\nexpcet = 1')})
    error = load_error(root)
    assert (error.field, error.message) == ("checks[0].expcet", "unknown key")


def test_toml_syntax_error(tmp_path):
    root = write_world(tmp_path, tasks={"t": "title = \n"})
    assert "not valid TOML" in str(load_error(root))


def test_task_naming_an_unknown_role(tmp_path):
    root = write_world(tmp_path, tasks={"t": BASIC_TASK.replace('role = "desk"', 'role = "clerk"')})
    error = load_error(root)
    assert error.field == "role"
    assert error.message.startswith("unknown role 'clerk' (known: admin, desk)")


def test_task_naming_an_unknown_tool(tmp_path):
    root = write_world(
        tmp_path, tasks={"t": BASIC_TASK.replace('call = "add_note"', 'call = "add_notes"')}
    )
    error = load_error(root)
    assert error.field == "solution.steps[0].call"
    assert error.message.startswith("unknown tool 'add_notes'")


def test_fault_naming_an_unknown_tool(tmp_path):
    task = BASIC_TASK + '\n[[faults]]\ntool = "nope"\neffect = "fail"\n'
    error = load_error(write_world(tmp_path, tasks={"t": task}))
    assert error.field == "faults[0].tool"


def test_role_listing_an_unknown_tool(tmp_path):
    root = write_world(
        tmp_path, world_toml=DESK_WORLD.replace('tools = ["admin_only"]', 'tools = ["admin_onyl"]')
    )
    error = load_error(root)
    assert error.file.endswith("world.toml")
    assert error.field == "roles.admin.tools[0]"


def test_task_naming_an_unknown_verifier(tmp_path):
    root = write_world(
        tmp_path, tasks={"t": task_with_check('assert = "python"\nverifier = "VER-404"')}
    )
    error = load_error(root)
    assert error.field == "checks[0].verifier"
    assert error.message.startswith("unknown verifier 'VER-404'")


def test_sql_that_does_not_parse(tmp_path):
    root = write_world(tmp_path, tasks={"t": task_with_check('sql = "SELEC count(*) FROM notes"')})
    error = load_error(root)
    assert error.field == "checks[0].sql"
    assert error.message.startswith("SQL does not parse")


def test_two_statements(tmp_path):
    root = write_world(tmp_path, tasks={"t": task_with_check('sql = "SELECT 1; SELECT 2"')})
    error = load_error(root)
    assert (error.field, error.message) == (
        "checks[0].sql",
        "SQL holds 2 statements; a check is exactly one",
    )


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("DELETE FROM notes", "is a DELETE statement"),
        ("UPDATE notes SET text = 'x'", "is an UPDATE statement"),
        ("INSERT INTO notes (text) VALUES ('x')", "is an INSERT statement"),
        ("ATTACH 'other.db' AS other", "is an ATTACH statement"),
        ("PRAGMA query_only = 0", "is a PRAGMA statement"),
        (
            "WITH gone AS (DELETE FROM notes RETURNING *) SELECT count(*) FROM gone",
            "contains DELETE",
        ),
        ("SELECT load_extension('x')", "calls load_extension()"),
    ],
)
def test_writes_are_refused(tmp_path, sql, reason):
    root = write_world(tmp_path, tasks={"t": task_with_check(f'sql = "{sql}"')})
    error = load_error(root)
    assert error.field == "checks[0].sql"
    assert reason in error.message


def test_derived_expectation_is_checked_too(tmp_path):
    check = 'sql = "SELECT 1"\nexpect = { sql = "DELETE FROM notes" }'
    error = load_error(write_world(tmp_path, tasks={"t": task_with_check(check)}))
    assert error.field == "checks[0].expect.sql"


def test_unknown_comparison(tmp_path):
    root = write_world(tmp_path, tasks={"t": task_with_check('sql = "SELECT 1"\nop = "approx"')})
    error = load_error(root)
    assert error.field == "checks[0].op"
    assert error.message.startswith(
        "unknown comparison 'approx'; use one of eq, ne, gt, ge, lt, le"
    )


def test_unknown_change_moment(tmp_path):
    task = BASIC_TASK.replace(
        'request = "Please add a note saying hello."',
        'request = "r"\nchanges = [ { at = "later", say = "x" } ]',
    )
    error = load_error(write_world(tmp_path, tasks={"t": task}))
    assert error.field == "customer.changes[0].at"


def test_seed_sql_that_fails(tmp_path):
    root = write_world(tmp_path, seed="INSERT INTO nowhere VALUES (1);")
    error = load_error(root)
    assert error.file.endswith("seed.sql")
    assert "seed failed: no such table: nowhere" in error.message


def test_seed_csv_with_an_unknown_column(tmp_path):
    root = write_world(
        tmp_path, world_toml=DESK_WORLD.replace('seed = ["seed.sql"]', 'seed = ["notes.csv"]')
    )
    (root / "notes.csv").write_text("id,text,colour\n1,a,red\n")
    error = load_error(root)
    assert error.file.endswith("notes.csv")
    assert error.field == "line 2"
    assert "has no column named colour" in error.message


def test_seed_jsonl_with_a_bad_line(tmp_path):
    root = write_world(
        tmp_path, world_toml=DESK_WORLD.replace('seed = ["seed.sql"]', 'seed = ["notes.jsonl"]')
    )
    (root / "notes.jsonl").write_text('{"text": "a"}\n{"text": \n')
    error = load_error(root)
    assert (error.field, error.message.split(":")[0]) == ("line 2", "not JSON")


def test_seed_of_an_unknown_format(tmp_path):
    root = write_world(
        tmp_path, world_toml=DESK_WORLD.replace('seed = ["seed.sql"]', 'seed = ["notes.xlsx"]')
    )
    assert "seed files are .sql, .csv or .jsonl" in str(load_error(root))


def test_schema_using_the_reserved_prefix(tmp_path):
    root = write_world(tmp_path, schema="CREATE TABLE sandbox_mine (id INTEGER);")
    assert "reserved prefix sandbox_" in str(load_error(root))


def test_tools_file_that_does_not_import(tmp_path):
    root = write_world(
        tmp_path,
        tools="from assay import tool\n\n@tool\ndef broken(world) -> dict:\n    return {\n",
    )
    error = load_error(root)
    assert error.file.endswith("tools.py")
    assert error.message.startswith("cannot load: SyntaxError")


def test_unknown_service_kind(tmp_path):
    root = write_world(
        tmp_path, world_toml=DESK_WORLD.replace('log = "recorder"', 'log = "logger"')
    )
    error = load_error(root)
    assert error.field == "services.log"
    assert "unknown service kind 'logger'" in error.message


def test_answer_check_with_no_condition(tmp_path):
    root = write_world(tmp_path, tasks={"t": task_with_check('assert = "answer"')})
    error = load_error(root)
    assert error.field == "checks[0]"
    assert "contains, not_contains or number" in error.message


def test_step_with_two_actions(tmp_path):
    task = BASIC_TASK.replace('{ finish = "done" }', '{ say = "hi", finish = "done" }')
    error = load_error(write_world(tmp_path, tasks={"t": task}))
    assert error.field == "solution.steps[1]"
    assert "exactly one of call, say or finish" in error.message


def test_query_parameter_without_a_value(tmp_path):
    root = write_world(
        tmp_path,
        tasks={"t": task_with_check('sql = "SELECT count(*) FROM notes WHERE text = :text"')},
    )
    error = load_error(root)
    assert error.field == "checks[0].params"
    assert "no value for :text" in error.message


def test_positional_parameter_in_a_check(tmp_path):
    root = write_world(
        tmp_path, tasks={"t": task_with_check('sql = "SELECT count(*) FROM notes WHERE text = ?"')}
    )
    error = load_error(root)
    assert (error.field, error.message) == ("checks[0].sql", "use named parameters (:name), not ?")
