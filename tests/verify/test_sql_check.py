"""SQL checks: one value, six comparisons, numbers as numbers, derived expectations, clear details."""

from __future__ import annotations

import pytest
from worldkit import DESK_WORLD, WRITE_REFUSED, write_world

from assay.errors import SpecError
from assay.sdk import TaskRun


@pytest.fixture
def grade(tmp_path, open_world):
    """`grade(check, steps)`: the check run of a task with that one check, after those calls."""
    return lambda check, steps=(): _graded(open_world, tmp_path, check, steps)


def _graded(open_world, tmp_path, check: str, steps=()):
    task = f"""
title = "t"
role = "desk"
[customer]
request = "r"
[[checks]]
name = "the check"
{check}
"""
    benchmark = open_world(write_world(tmp_path, tasks={"t": task}))
    with TaskRun(benchmark, "t") as run:
        for tool, args in steps:
            run.call(tool, **args)
        result = run.finish("")
    return result.checks[0]


# What an operator means is the same on either backend (verify/compare.py compares the value in
# Python), so each one runs on SQLite; that PostgreSQL's values compare as SQLite's do is shown
# on both backends by the tests of numbers as numbers, text as text, and details and evidence.
@pytest.mark.parametrize("world_db", [None], ids=["sqlite"])
@pytest.mark.parametrize(
    ("op", "expect", "passed"),
    [
        ("eq", 2, True),
        ("eq", 3, False),
        ("ne", 3, True),
        ("gt", 1, True),
        ("gt", 2, False),
        ("ge", 2, True),
        ("lt", 2, False),
        ("le", 2, True),
        ("==", 2, True),
        ("!=", 2, False),
        (">", 1, True),
        (">=", 3, False),
        ("<", 3, True),
        ("<=", 1, False),
    ],
)
def test_comparisons(grade, op, expect, passed):
    run = grade(f'sql = "SELECT count(*) FROM notes"\nop = "{op}"\nexpect = {expect}')
    assert run.passed is passed
    assert run.score == (1.0 if passed else 0.0)


def test_numbers_compare_as_numbers_even_when_stored_as_text(grade):
    # '10' < '9' as text; 10 > 9 as numbers
    run = grade('sql = "SELECT value FROM numbers WHERE name = \'ten\'"\nop = "gt"\nexpect = 9')
    assert run.passed
    run = grade("sql = \"SELECT value FROM numbers WHERE name = 'ten'\"\nexpect = 10.0")
    assert run.passed


def test_text_compares_as_text(grade):
    run = grade('sql = "SELECT text FROM notes WHERE id = 1"\nexpect = "first"')
    assert run.passed
    assert run.details == "the query returned 'first'; wanted = 'first'"


def test_details_and_evidence_carry_the_numbers(grade):
    run = grade(
        'sql = "SELECT count(*) FROM notes WHERE text = :t"\nparams = { t = "hello" }\nexpect = 1',
    )
    assert run.passed is False
    assert run.details == "the query returned 0; wanted = 1"
    assert run.evidence == {
        "query": "SELECT count(*) FROM notes WHERE text = :t",
        "params": {"t": "hello"},
        "op": "eq",
        "expected": 1,
        "actual": 0,
    }


def test_null_is_wanted_by_omitting_expect(grade):
    assert grade('sql = "SELECT at FROM notes WHERE id = 1"').passed


@pytest.mark.parametrize(
    ("sql", "details"),
    [
        ("SELECT text FROM notes WHERE id = 99", "the query returned no rows"),
        ("SELECT text FROM notes", "the query returned more than one row"),
        ("SELECT id, text FROM notes WHERE id = 1", "the query returned 2 columns (id, text)"),
    ],
)
def test_anything_but_one_value_fails_with_what_came_back(grade, sql, details):
    run = grade(f'sql = "{sql}"\nexpect = 1')
    assert run.passed is False
    assert run.details == f"{details}; a check needs exactly one row of one column"


def test_expectation_derived_from_the_initial_state(grade):
    check = (
        'sql = "SELECT count(*) FROM notes"\nexpect = { sql = "SELECT count(*) + 1 FROM notes" }'
    )
    assert grade(check, [("add_note", {"text": "x"})]).passed
    assert not grade(check).passed


def test_a_check_can_query_the_initial_state(grade):
    check = 'sql = "SELECT count(*) FROM notes"\ndb = "initial"\nexpect = 2'
    assert grade(check, [("add_note", {"text": "x"})]).passed


def test_a_slow_check_fails_with_details(tmp_path, open_world):
    forever = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    )
    root = write_world(
        tmp_path,
        world_toml=DESK_WORLD.replace('version = "1"', 'version = "1"\ncheck_timeout_s = 0.2'),
        tasks={
            "t": f'title = "t"\nrole = "desk"\n[customer]\nrequest = "r"\n[[checks]]\nname = "slow"\nsql = "{forever}"\n'
        },
    )
    with TaskRun(open_world(root), "t") as run:
        result = run.finish("")
    assert result.checks[0].passed is False
    assert result.checks[0].details == "the query was stopped after 0.2s"
    assert result.outcome == "not_achieved"


# The database's own words for the error.
NO_COLUMN = {"sqlite": "no such column: nope", "postgresql": 'column "nope" does not exist'}


def test_a_query_error_means_scoring_failed(tmp_path, open_world, backend):
    root = write_world(
        tmp_path,
        tasks={
            "t": 'title = "t"\nrole = "desk"\n[customer]\nrequest = "r"\n[[checks]]\nname = "c"\nsql = "SELECT nope FROM notes"\n'
        },
    )
    # Opened without the load-time proof of names, which refuses this check before any run.
    with TaskRun(open_world(root, build=False), "t") as run:
        result = run.finish("")
    assert result.outcome == "not_scored"
    assert result.error.side == "scoring"
    assert result.error.message == f"check 'c': the query failed: {NO_COLUMN[backend]}"


def test_an_unknown_assert_never_loads(grade):
    """It used to load and fail every task run as unsupported; a task that cannot be graded is
    a load error naming the field."""
    with pytest.raises(
        SpecError, match=r"checks\[0\]\.assert: unknown assert 'dicom-series-present'"
    ):
        grade('assert = "dicom-series-present"\nseries = "1.2.3"')


def test_a_check_nothing_proved_read_only_is_still_refused_at_run_time(
    tmp_path, open_world, reset, backend
):
    """The check model is built directly, so the static proof never saw its SQL."""
    from assay.formats.checks import SqlCheck
    from assay.verify.context import VerifyContext
    from assay.verify.sql import run_sql_check
    from assay.verify.views import ReadView

    benchmark = open_world(write_world(tmp_path))
    live = reset(benchmark.world)
    live.freeze()
    context = VerifyContext(
        task=benchmark.tasks["basic"],
        final=ReadView(live.db, 2.0),
        initial=ReadView(benchmark.world.initial, 2.0),
        agent_output="",
        request="",
        world_run=live.run,
    )
    run = run_sql_check(SqlCheck(name="sneaky", sql="DELETE FROM notes", expect=0), context)
    assert (run.passed, run.details) == (False, f"the query was refused: {WRITE_REFUSED[backend]}")
    assert live.db.value("SELECT count(*) FROM notes") == 2
