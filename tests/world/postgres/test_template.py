"""The starting state on PostgreSQL: a template database, built once, equal in content to SQLite's."""

from __future__ import annotations

import psycopg
import pytest

from assay.errors import SpecError
from assay.world.load import load_world
from assay.world.postgres.server import Server
from assay.world.postgres.template import load_template


def _database(url: str, name: str) -> tuple[bool, bool] | None:
    with psycopg.connect(url) as connection:
        found = connection.execute(
            "SELECT datistemplate, datallowconn FROM pg_database WHERE datname = %s", [name]
        ).fetchone()
    return found


def test_the_template_cannot_be_connected_to(shop_on_postgres, postgres_url: str) -> None:
    template = shop_on_postgres.world.snapshot
    assert _database(postgres_url, template.name) == (True, False)
    assert _database(postgres_url, template.initial) == (False, True)


def test_the_template_is_built_once_per_version(shop_on_postgres, postgres_url: str) -> None:
    world = shop_on_postgres.world
    again = load_template(world.backend.server, world.root, world.spec)
    assert again == world.snapshot
    server = world.backend.server
    assert [name for name in server.databases() if "_b_" in name] == []


def test_initial_content_hashes_as_on_sqlite(shop_on_postgres, shop) -> None:
    postgres, sqlite = shop_on_postgres.world.snapshot, shop.world.snapshot
    assert postgres.digests == sqlite.digests
    assert {table: tuple(names) for table, names in postgres.columns.items()} == sqlite.columns


def test_a_changed_seed_builds_a_new_template(make_world, postgres_url: str) -> None:
    root = make_world("CREATE TABLE t (a INTEGER);", {"seed.sql": "INSERT INTO t VALUES (1);"})
    first = load_world(root, postgres_url).snapshot
    (root / "seed.sql").write_text("INSERT INTO t VALUES (2);")
    second = load_world(root, postgres_url).snapshot
    assert first.name != second.name and first.digests != second.digests


def test_csv_and_jsonl_seeds_load_as_on_sqlite(make_world, postgres_url: str) -> None:
    root = make_world(
        "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, cents INTEGER, meta TEXT);",
        {
            "items.csv": "id,name,cents,meta\n1,pen,250,\n2,ink,1200,x\n",
            "notes.jsonl": "",
        },
    )
    (root / "schema.sql").write_text(
        "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, cents INTEGER, meta TEXT);"
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, tags TEXT);"
    )
    (root / "notes.jsonl").write_text('{"body": "hi", "tags": ["a", "b"]}\n{"body": "yo"}\n')
    on_postgres = load_world(root, postgres_url).snapshot
    on_sqlite = load_world(root).snapshot
    assert on_postgres.digests == on_sqlite.digests


@pytest.mark.parametrize(
    ("schema", "seeds", "where", "message"),
    [
        ("CREATE TABLE t (a INTEGER", {}, "schema.sql", "schema failed"),
        ("CREATE TABLE t (a INTEGER REFERENCES nowhere(id));", {}, "schema.sql", "schema failed"),
        (
            "CREATE TABLE sandbox_things (a INTEGER);",
            {},
            "schema.sql",
            "table sandbox_things uses the reserved prefix sandbox_",
        ),
        (
            "CREATE TABLE t (a INTEGER NOT NULL);",
            {"seed.sql": "INSERT INTO t VALUES (NULL);"},
            "seed.sql",
            "seed failed: null value in column",
        ),
        (
            "CREATE TABLE t (a INTEGER);",
            {"t.csv": "a\n1\nnot a number\n"},
            "t.csv: line 3",
            "seed failed: invalid input syntax for type bigint",
        ),
        (
            "CREATE TABLE t (a INTEGER);",
            {"seed.sql": "INSERT INTO sandbox_actions (turn, kind, status) VALUES (1, 'x', 'OK');"},
            "world.toml: database.seed",
            "seeds may not fill sandbox_actions",
        ),
    ],
)
def test_bad_data_files_name_file_and_field(
    make_world, postgres_url: str, schema: str, seeds: dict[str, str], where: str, message: str
) -> None:
    root = make_world(schema, seeds)
    world = load_world(root, postgres_url)
    with pytest.raises(SpecError) as raised:
        _ = world.snapshot
    assert where in str(raised.value) and message in str(raised.value)
    server: Server = world.backend.server
    assert [name for name in server.databases() if "_b_" in name] == []
