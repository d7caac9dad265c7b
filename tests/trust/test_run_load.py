"""`assay run` proves every check's names when the world loads, and says when task runs went unscored."""

from __future__ import annotations

from pathlib import Path

import pytest
from trustkit import assay_here

from assay.errors import SpecError
from assay.runs import open_benchmark
from assay.trust.validate import validate_world

MISSING_COLUMN = 'sql = "SELECT count(*) FROM orders WHERE nope = 1"\nexpect = 0'


def break_check(world: Path, task_id: str = "update-address") -> Path:
    """The task's first check now names a column the orders table does not have."""
    task = world / "tasks" / f"{task_id}.toml"
    text = task.read_text()
    task.write_text(
        text.replace(
            "sql = \"SELECT address FROM orders WHERE id = 'B-2003'\"\n"
            'expect = "18 Mill Lane, York"',
            MISSING_COLUMN,
        )
    )
    assert MISSING_COLUMN in task.read_text()
    return task


def test_a_check_naming_a_missing_column_does_not_load_for_a_run(shop_copy: Path):
    break_check(shop_copy)
    with pytest.raises(SpecError) as raised:
        open_benchmark(shop_copy)
    error = raised.value
    assert error.file.endswith("tasks/update-address.toml")
    assert error.field == "checks[0].sql"
    assert error.message.startswith("unknown column 'nope' (tables read: orders)")


def test_an_unknown_table_in_a_derived_expect_is_named_too(shop_copy: Path):
    task = shop_copy / "tasks" / "update-address.toml"
    task.write_text(
        task.read_text().replace(
            'expect = "18 Mill Lane, York"',
            "expect = { sql = \"SELECT address FROM addresses WHERE id = 'B-2003'\" }",
        )
    )
    with pytest.raises(SpecError, match=r"checks\[0\]\.expect\.sql: unknown table 'addresses'"):
        open_benchmark(shop_copy)


def test_assay_run_refuses_it_with_one_line_and_exit_2(shop_copy: Path, tmp_path: Path):
    """The issue: this run loaded, its task run ended not scored, and it printed score 1.000 (pass)."""
    break_check(shop_copy)
    done = assay_here(
        "run", shop_copy, "--task", "update-address", "--task", "email-tracking", cwd=tmp_path
    )
    assert done.returncode == 2, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ")
    assert "tasks/update-address.toml: checks[0].sql: unknown column 'nope'" in lines[0]
    assert "Traceback" not in done.stderr
    assert "score" not in done.stdout


def test_validate_still_loads_the_world_and_fails_only_that_task(shop_copy: Path):
    break_check(shop_copy)
    report = validate_world(shop_copy, ["update-address", "email-tracking"])
    tasks = {task.task_id: task for task in report.tasks}
    static = tasks["update-address"].proofs["static"]
    assert static.status == "failed"
    assert static.reasons[0].startswith("checks[0].sql: unknown column 'nope'")
    assert tasks["email-tracking"].passed


def test_unscored_task_runs_are_in_the_verdict_line(shop_copy: Path, tmp_path: Path):
    """A check that breaks only when it runs leaves its task run not scored; the run says so."""
    task = shop_copy / "tasks" / "update-address.toml"
    task.write_text(
        task.read_text().replace(
            "sql = \"SELECT address FROM orders WHERE id = 'B-2003'\"",
            "sql = \"SELECT json_extract('not json', '$.a') || address FROM orders WHERE id = 'B-2003'\"",
        )
    )
    done = assay_here(
        "run", shop_copy, "--task", "update-address", "--task", "email-tracking", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "score 1.000 (pass) · 0 rule violated · 1 not scored · " in done.stdout
    assert "not_scored 1" in done.stdout


def test_a_fully_scored_run_keeps_its_plain_verdict_line(tmp_path: Path):
    from worldkit import SHOP

    done = assay_here("run", SHOP, "--task", "email-tracking", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "score 1.000 (pass) · 0 rule violated · 0 not scored · mean reward" in done.stdout


def test_the_proof_runs_once_per_task_per_load_never_per_task_run(
    shop_copy: Path, monkeypatch, tmp_path: Path
):
    from assay.runs import run_task
    from assay.taskrun.agents.resolve import agent_factory
    from assay.world import loadable as loading

    proved: list[str] = []
    real = loading.unknown_check_names

    def counted(task, columns, backend="sqlite"):
        proved.append(task.id)
        return real(task, columns, backend)

    monkeypatch.setattr(loading, "unknown_check_names", counted)
    monkeypatch.setattr(loading, "_proved", set())
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))  # no proof kept by an earlier load
    opened = open_benchmark(shop_copy)
    assert sorted(proved) == sorted(opened.tasks)
    task = opened.tasks["email-tracking"]
    for index in range(3):
        run_task(opened, task, agent_factory("reference")(task), run_id=f"tr_{index}")
    assert len(proved) == len(opened.tasks)
    open_benchmark(shop_copy).close()  # the same files again: nothing to prove again
    assert len(proved) == len(opened.tasks)
    opened.close()


def test_a_task_file_edited_after_a_clean_load_is_proved_again(shop_copy: Path):
    open_benchmark(shop_copy).close()
    break_check(shop_copy)
    with pytest.raises(SpecError, match=r"checks\[0\]\.sql: unknown column 'nope'"):
        open_benchmark(shop_copy)
