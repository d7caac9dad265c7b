"""The store's schema comes from the shipped migrations, on first use; bad stores are refused."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator

import pytest
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text

from assay.errors import UsageError
from assay.runs.store import open_store
from assay.runs.store.location import connect, locate
from assay.runs.store.migrate import MIGRATIONS, migrate
from assay.runs.store.tables import HEAD, metadata

TABLES = {"benchmark_runs", "task_runs", "check_runs", "trajectories", "validations"}


def tables_in(path) -> set[str]:
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {name for (name,) in rows}


def test_head_names_the_newest_migration():
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    assert ScriptDirectory.from_config(config).get_heads() == [HEAD]


@pytest.fixture(params=["sqlite", "postgresql"])
def migrated(request, tmp_path) -> Iterator[Engine]:
    """An engine on a store built by the Alembic migrations alone."""
    url = f"sqlite:///{tmp_path / 'migrated.db'}"
    if request.param == "postgresql":
        url = request.getfixturevalue("empty_postgres_store")
    location = locate(url)
    engine = connect(location)
    migrate(engine, location)
    yield engine
    engine.dispose()


def test_the_migrations_build_exactly_the_tables_the_code_uses(migrated):
    with migrated.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), metadata)
        assert [row[0] for row in connection.execute(text("SELECT * FROM alembic_version"))] == [
            HEAD
        ]
    assert differences == []


def shape(path) -> dict:
    """Every table's columns, indexes (with their columns) and foreign keys (with what a delete
    does), as SQLite says."""
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT type, name FROM sqlite_master WHERE type != 'trigger'")
        named = sorted(rows.fetchall())
        return {
            name: [
                connection.execute(f"PRAGMA table_info({name})").fetchall(),
                connection.execute(f"PRAGMA index_info({name})").fetchall(),
                sorted(row[1:] for row in connection.execute(f"PRAGMA index_list({name})")),
                sorted(connection.execute(f"PRAGMA foreign_key_list({name})").fetchall()),
            ]
            for _, name in named
        }


def test_a_new_store_is_made_as_the_migrations_make_it_without_running_them(tmp_path):
    created = tmp_path / "created.db"
    code = (
        "import sys; from assay.runs.store import open_store; "
        f"open_store({str(created)!r}).close(); "
        "print(any(name.startswith('alembic') for name in sys.modules))"
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert ran.stdout.strip() == "False", ran.stderr
    location = locate(str(tmp_path / "migrated.db"))
    engine = connect(location)
    migrate(engine, location)
    engine.dispose()
    assert shape(created) == shape(tmp_path / "migrated.db")


def test_first_use_migrates_an_empty_file(tmp_path):
    path = tmp_path / "empty.db"
    path.touch()
    with open_store(str(path)):
        pass
    assert tables_in(path) >= TABLES | {"alembic_version"}
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchall() == [(HEAD,)]


def test_first_use_makes_the_folder_and_the_file(tmp_path):
    path = tmp_path / "deep" / "er" / "records.db"
    with open_store(f"sqlite:///{path}"):
        pass
    assert tables_in(path) >= TABLES


def test_the_default_store_is_under_dot_assay_here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ASSAY_STORE", raising=False)
    monkeypatch.delenv("ASSAY_HOME", raising=False)
    with open_store() as store:
        assert store.location.shown == "sqlite:///.assay/assay.db"
    assert tables_in(tmp_path / ".assay" / "assay.db") >= TABLES


def test_assay_home_moves_the_default_store(tmp_path, monkeypatch):
    monkeypatch.delenv("ASSAY_STORE", raising=False)
    monkeypatch.setenv("ASSAY_HOME", str(tmp_path / "home"))
    with open_store():
        pass
    assert tables_in(tmp_path / "home" / "assay.db") >= TABLES


def test_the_environment_names_the_store_when_no_option_does(tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "from-env.db"))
    assert locate().parameter == "ASSAY_STORE"
    assert locate(str(tmp_path / "option.db")).parameter == "--store"
    with open_store():
        pass
    assert (tmp_path / "from-env.db").exists()


def test_a_second_open_keeps_the_records(tmp_path):
    path = tmp_path / "records.db"
    with open_store(str(path)) as store:
        store.save_validation("w", "1", "t", "h", True, {"kept": True})
    with open_store(str(path)) as store:
        assert [e["record"] for e in store.latest_validations("w", "1")] == [{"kept": True}]


def test_a_store_from_a_newer_assay_is_refused(tmp_path):
    path = tmp_path / "newer.db"
    with open_store(str(path)):
        pass
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999'")
    with pytest.raises(UsageError) as refused:
        open_store(str(path))
    assert str(refused.value) == (
        f"--store: sqlite:///{path} has schema revision '9999', "
        "newer than this version of assay knows"
    )


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("these are notes, not a database\n" * 100)
    with pytest.raises(UsageError) as refused:
        open_store(str(path))
    assert str(refused.value) == (f"--store: cannot open sqlite:///{path}: file is not a database")


def test_an_unreachable_postgresql_server_is_one_line(monkeypatch):
    monkeypatch.setenv("ASSAY_STORE", "postgresql://postgres:secret@127.0.0.1:1/nothing")
    with pytest.raises(UsageError) as refused:
        open_store()
    message = str(refused.value)
    assert message.startswith(
        "ASSAY_STORE: cannot open postgresql+psycopg://postgres:***@127.0.0.1:1/nothing: "
    )
    assert "secret" not in message
    assert "\n" not in message


def test_a_missing_postgresql_database_is_one_line():
    url = "postgresql+psycopg://postgres@127.0.0.1:5432/assay_no_such_database"
    with pytest.raises(UsageError, match='database "assay_no_such_database" does not exist'):
        open_store(url)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("mysql://root@localhost/x", "--store: unsupported database 'mysql'; use sqlite:///FILE"),
        ("sqlite://", "--store: an in-memory SQLite store keeps nothing; name a file"),
        ("sqlite:///:memory:", "--store: an in-memory SQLite store keeps nothing; name a file"),
        ("::not a url://", "--store: '::not a url://' is not a database URL"),
    ],
)
def test_bad_store_urls_are_refused(text, message):
    with pytest.raises(UsageError) as refused:
        open_store(text)
    assert str(refused.value).startswith(message)


def test_a_plain_postgresql_url_means_psycopg_3():
    location = locate("postgresql://postgres@127.0.0.1:5432/x")
    assert location.url.drivername == "postgresql+psycopg"
