"""The statements of `assay run`'s path on an SQLite file through sqlite3: compiled ahead of time
from the one definition of the schema and statements, storing exactly what SQLAlchemy stores."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import count
from typing import Any

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine
from sqlalchemy.engine import make_url

from assay.runs.plan import PlannedRun
from assay.runs.store import open_store, repository
from assay.runs.store import records as store_records
from assay.runs.store.batch import commit
from assay.runs.store.generate import TARGET, source
from assay.runs.store.lite import SqliteFile, Statements
from assay.runs.store.location import connect, locate
from assay.runs.store.migrate import MIGRATIONS
from assay.runs.store.repository import Store
from assay.runs.store.statements import PATH
from assay.runs.store.tables import HEAD

STAMP = "2026-01-02T03:04:05.000006Z"


def test_the_compiled_statements_are_those_the_generator_makes_now():
    # after editing tables.py or statements.py: `make statements`
    assert TARGET.read_text(encoding="utf-8") == source()


class SqlalchemyStatements(Statements):
    """The same named statements run by SQLAlchemy itself: binding as it always has (a lone
    statement's `read` and `write` in a transaction, as `Statements` runs them)."""

    def __init__(self, engine: Engine):
        super().__init__()
        self.engine = engine

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        with self.engine.begin() as connection:
            yield _Executed(connection)

    def close(self) -> None:
        pass


class _Executed:
    def __init__(self, connection):
        self.connection = connection

    def write(self, name: str, values: Any) -> int:
        if isinstance(values, list) and not values:
            return 0
        return self.connection.execute(PATH[name][0], values).rowcount

    def rows(self, name: str, values: dict[str, Any]) -> list[Any]:
        return self.connection.execute(PATH[name][0], values).all()


def stored(path) -> dict[str, list[tuple]]:
    """Every row of the run's tables as SQLite holds it (JSON as its text), check ids aside."""
    with sqlite3.connect(path) as connection:
        return {
            table: sorted(connection.execute(f"SELECT {columns} FROM {table}").fetchall())
            for table, columns in (
                ("benchmark_runs", "*"),
                ("task_runs", "*"),
                ("trajectories", "*"),
                (
                    "check_runs",
                    "task_run_id, position, name, type, kind, weight, axis, passed, "
                    "score, details, evidence, typeof(weight), typeof(passed)",
                ),
            )
        }


def record(store: Store, results, finish: dict[str, Any] | None) -> None:
    """A run created, started, its results committed by the batch writer, and finished."""
    planned = [PlannedRun(r.id, r.task_id, r.repeat) for r in results]
    splits = {r.task_id: r.split for r in results}
    store.create_benchmark_run(
        "br_same", world="shop", world_version="1", world_path="/w", agent="reference",
        repeats=1, planned=planned, splits=splits, scored=True,
    )  # fmt: skip
    store.start_benchmark_run("br_same")
    commit(store, "br_same", {results[-1].id: STAMP}, [(r, STAMP) for r in results[:-1]])
    store.finish_benchmark_run("br_same", phase="completed", status="completed", figures=finish)


@pytest.mark.parametrize("figures", [{"score": 0.5, "verdict": "fail", "n": [1, 2.5]}, None])
def test_a_run_is_stored_byte_for_byte_as_sqlalchemy_stores_it(
    tmp_path, monkeypatch, results, figures
):
    monkeypatch.setattr(repository, "now", lambda: STAMP)
    written = {}
    for way in ("sqlite3", "sqlalchemy"):
        ids = count()
        monkeypatch.setattr(
            store_records, "new_id", lambda prefix, ids=ids: f"{prefix}_{next(ids)}"
        )
        path = tmp_path / f"{way}.db"
        with open_store(str(path)) as store:
            assert isinstance(store.statements, SqliteFile)
            if way == "sqlalchemy":
                store.statements = SqlalchemyStatements(store.engine)
            record(store, results, figures)
            assert store.benchmark_run("br_s").finished == len(results) - 1
            assert [s.id for s in store.task_states("br_same")] == [r.id for r in results]
        written[way] = stored(path)
    assert written["sqlite3"] == written["sqlalchemy"]
    assert len(written["sqlite3"]["check_runs"]) == sum(len(r.checks) for r in results[:-1])


def test_what_either_way_wrote_reads_back_the_same(tmp_path, monkeypatch, results):
    monkeypatch.setattr(repository, "now", lambda: STAMP)
    read = {}
    for way in ("sqlite3", "sqlalchemy"):
        with open_store(str(tmp_path / f"{way}.db")) as store:
            record(store, results, {"score": 1.0, "verdict": "pass"})
            lite = store.statements
            if way == "sqlalchemy":  # written by sqlite3, read by SQLAlchemy
                store.statements = SqlalchemyStatements(store.engine)
            read[way] = (
                store.benchmark_run("br_same"),
                store.task_states("br_same"),
                store.task_rows("br_same"),
                list(store.each_result("br_same", trajectories_too=True, page=2)),
            )
            lite.close()
    assert read["sqlite3"] == read["sqlalchemy"]
    assert read["sqlite3"][3] == results[:-1]
    assert read["sqlite3"][0].scored is True and read["sqlite3"][0].figures["verdict"] == "pass"


@pytest.mark.parametrize(
    "text",
    ["sqlite:///runs.db", "sqlite:////abs/runs.db", "sqlite:///a%20b%3Fc.db", "sqlite:///a@b:c.db"],
)
def test_an_sqlite_url_is_read_as_sqlalchemy_reads_it(text):
    location = locate(text)
    url = make_url(text)
    assert location.file == url.database
    assert location.url == url
    assert location.shown == url.render_as_string(hide_password=True)


def test_a_plain_path_is_shown_as_sqlalchemy_renders_it():
    location = locate("runs dir/a%b?.db")
    assert location.file == "runs dir/a%b?.db"
    assert location.shown == location.url.render_as_string(hide_password=True)


def test_an_sqlite_url_with_options_runs_the_same_statements_on_the_engine(tmp_path, results):
    url = f"sqlite:///{tmp_path / 'options.db'}?timeout=20"
    with open_store(url) as store:
        assert not isinstance(store.statements, SqliteFile)
        record(store, results, None)
        assert store.benchmark_run("br_same").finished == len(results) - 1
        assert list(store.each_result("br_same")) == [
            result.model_copy(update={"trajectory": None}) for result in results[:-1]
        ]


def test_an_older_store_is_migrated_by_sqlalchemy_then_runs_on_sqlite3(tmp_path, results):
    path = tmp_path / "older.db"
    location = locate(str(path))
    engine = connect(location)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0002")
    engine.dispose()
    with open_store(str(path)) as store:
        assert isinstance(store.statements, SqliteFile)
        record(store, results, None)
        assert store.benchmark_run("br_same").key_id is None
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT * FROM alembic_version").fetchall() == [(HEAD,)]


def test_an_engine_made_for_other_methods_sees_what_sqlite3_wrote(tmp_path, results):
    with open_store(str(tmp_path / "both.db")) as store:
        record(store, results, None)
        assert [r.id for r in store.recent()] == ["br_same"]
        assert isinstance(connect(store.location), Engine)
