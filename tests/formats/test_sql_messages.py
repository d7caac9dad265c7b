"""A statement that is not a query is named as written, with no parser warning printed before it."""

from __future__ import annotations

import re
import sys

import pytest
from worldkit import BASIC_TASK, write_world

from assay.cli.app import run_app
from assay.formats.sqltext import UnsafeSql, readonly_statement

NAMED = {
    "REINDEX": "is a REINDEX statement",
    "REINDEX notes": "is a REINDEX statement",
    "SAVEPOINT a": "is a SAVEPOINT statement",
    "REPLACE INTO notes (text) VALUES ('a')": "is a REPLACE statement",
    "VACUUM INTO 'copy.db'": "is a VACUUM statement",
    "/* first */ DELETE FROM notes RETURNING id": "is a DELETE statement",
    "WITH a AS (SELECT 1) INSERT INTO notes (text) SELECT * FROM a": "is an INSERT statement",
}


@pytest.mark.parametrize("sql", NAMED)
def test_the_statement_is_named_as_written(sql):
    with pytest.raises(UnsafeSql) as refused:
        readonly_statement(sql)
    assert str(refused.value) == f"{NAMED[sql]}; only SELECT or WITH is allowed"


@pytest.mark.parametrize("sql", ["REPLACE INTO notes (text) VALUES ('a')", "VACUUM INTO 'x.db'"])
def test_no_parser_warning_comes_before_the_error(tmp_path, monkeypatch, capsys, sql):
    task = BASIC_TASK.replace("SELECT count(*) FROM notes WHERE text = 'hello'", sql)
    root = write_world(tmp_path / "w", tasks={"t": task})
    monkeypatch.setattr(sys, "argv", ["assay", "run", str(root)])
    with pytest.raises(SystemExit) as done:
        run_app()
    err = capsys.readouterr().err
    assert done.value.code == 2
    assert err.count("\n") == 1, err
    assert "tasks/t.toml: checks[0].sql: SQL is a" in err


# What the run-time lock refuses, the static proof refuses first: the two never disagree.
BOTH_REFUSE = {
    "SELECT name FROM pragma_table_info('notes')": "calls pragma_table_info(), which a check may",
    "SELECT * FROM pragma_database_list": "calls pragma_database_list(), which a check may not",
}


@pytest.mark.parametrize("sql", BOTH_REFUSE)
def test_a_pragma_function_is_refused_by_the_proof_as_at_run_time(tmp_path, sql):
    from assay.world import load_world
    from assay.world.guard import QueryRefused

    with pytest.raises(UnsafeSql, match=re.escape(BOTH_REFUSE[sql])):
        readonly_statement(sql)
    live = load_world(write_world(tmp_path)).reset()
    live.freeze()
    with pytest.raises(QueryRefused):
        live.db.run_limited(1, sql, {})


RECURSIVE_LIMIT = "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n {clause}) SELECT count(*) FROM n"


@pytest.mark.parametrize("clause", ["LIMIT 5", "ORDER BY x LIMIT 5", "LIMIT 5 OFFSET 1"])
def test_a_limit_inside_a_recursive_cte_is_refused_on_every_backend(clause):
    """SQLite stops the recursion at it (the check ran, not_achieved); PostgreSQL does not
    implement it (not_scored): one task, two outcomes. Now it never loads."""
    for backend in ("sqlite", "postgresql"):
        with pytest.raises(UnsafeSql, match="inside the recursive CTE n, which PostgreSQL"):
            readonly_statement(RECURSIVE_LIMIT.format(clause=clause), backend)


@pytest.mark.parametrize(
    "sql",
    [
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 5) "
        "SELECT x FROM n LIMIT 2",
        "WITH RECURSIVE a AS (SELECT 1 UNION SELECT 2 LIMIT 1) SELECT * FROM a",  # not recursive
    ],
)
def test_a_limit_outside_the_recursion_is_allowed(sql):
    readonly_statement(sql)


def test_translating_for_postgresql_prints_no_parser_warning(capfd):
    """A verifier's query on a PostgreSQL world is translated; sqlglot's fallback warning went to
    stderr before the refusal."""
    from assay.world.postgres.translate import Translator

    statement = Translator({}).translate("VACUUM INTO 'x.db'")
    assert not statement.query
    assert capfd.readouterr().err == ""
