"""A statement that is not a query is named as written, with no parser warning printed before it."""

from __future__ import annotations

import sys

import pytest
from worldkit import BASIC_TASK, write_world

from assay.cli.app import run_app
from assay.spec.sqltext import UnsafeSql, readonly_statement

NAMED = {
    "REINDEX": "is a REINDEX statement",
    "REINDEX notes": "is a REINDEX statement",
    "SAVEPOINT a": "is a SAVEPOINT statement",
    "REPLACE INTO notes (text) VALUES ('a')": "is a REPLACE statement",
    "VACUUM INTO 'copy.db'": "is a VACUUM statement",
    "/* first */ DELETE FROM notes RETURNING id": "is a DELETE statement",
    "WITH a AS (SELECT 1) INSERT INTO notes (text) SELECT * FROM a": "is a INSERT statement",
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
