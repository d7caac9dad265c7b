"""Choosing a world's backend: SQLite by default, PostgreSQL by option, environment or world.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from assay.errors import SpecError, UsageError
from assay.formats.load import read_world
from assay.world.backend import SqliteBackend, open_backend

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "worlds" / "shop"


def _postgres_world(tmp_path: Path) -> Path:
    root = tmp_path / "pg"
    root.mkdir()
    (root / "world.toml").write_text(
        'name = "pg"\nversion = "1"\n[database]\nbackend = "postgresql"\nschema = "schema.sql"\n'
    )
    (root / "schema.sql").write_text("CREATE TABLE t (a INTEGER);")
    return root


def test_sqlite_by_default() -> None:
    assert isinstance(open_backend(SHOP, read_world(SHOP)), SqliteBackend)


def test_a_url_chooses_postgresql(postgres_url: str) -> None:
    backend = open_backend(SHOP, read_world(SHOP), postgres_url)
    assert backend.name == "postgresql"


def test_the_environment_chooses_postgresql(monkeypatch, postgres_url: str) -> None:
    monkeypatch.setenv("ASSAY_WORLD_DB", postgres_url)
    assert open_backend(SHOP, read_world(SHOP)).name == "postgresql"


def test_world_toml_chooses_postgresql(tmp_path: Path) -> None:
    root = _postgres_world(tmp_path)
    assert open_backend(root, read_world(root)).name == "postgresql"


@pytest.mark.parametrize(
    ("url", "env", "message"),
    [
        (
            "mysql://root@127.0.0.1/x",
            None,
            "--world-db: not a PostgreSQL URL: 'mysql://root@127.0.0.1/x'",
        ),
        (None, "sqlite:///x.db", "ASSAY_WORLD_DB: not a PostgreSQL URL: 'sqlite:///x.db'"),
    ],
)
def test_a_url_that_is_not_postgresql_is_refused(monkeypatch, url, env, message) -> None:
    if env:
        monkeypatch.setenv("ASSAY_WORLD_DB", env)
    with pytest.raises(UsageError) as raised:
        open_backend(SHOP, read_world(SHOP), url)
    assert str(raised.value).startswith(message)


def test_a_bad_prefix_is_refused(monkeypatch, postgres_url: str) -> None:
    monkeypatch.setenv("ASSAY_WORLD_DB_PREFIX", "Bad-Prefix")
    with pytest.raises(UsageError, match=r"^ASSAY_WORLD_DB_PREFIX: 'Bad-Prefix' must be"):
        open_backend(SHOP, read_world(SHOP), postgres_url)


def test_an_unreachable_server_named_by_world_toml_names_the_field(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("PGHOST", "127.0.0.1")
    monkeypatch.setenv("PGPORT", "1")
    root = _postgres_world(tmp_path)
    backend = open_backend(root, read_world(root))
    with pytest.raises(
        SpecError, match=r"world.toml: database.backend: cannot connect to PostgreSQL"
    ):
        _ = backend.snapshot


def test_sqlite_use_never_imports_psycopg() -> None:
    code = (
        "import sys\n"
        "from assay.runs import open_benchmark, prepare, run_benchmark\n"
        f"b = open_benchmark({str(SHOP)!r})\n"
        "run_benchmark(b, 'reference', prepare(b, 'reference', ['update-address']))\n"
        "from assay.cli.app import app\n"
        "assert 'psycopg' not in sys.modules, 'psycopg was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
