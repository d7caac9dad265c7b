from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from worldkit import SHOP

POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/{database}"
BACKENDS = ["sqlite", "postgresql"]
WORLD_POSTGRES = os.environ.get(
    "ASSAY_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres"
)


@pytest.fixture(scope="session", autouse=True)
def assay_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Snapshots and records of the test session go to a temporary directory."""
    home = tmp_path_factory.mktemp("assay-home")
    os.environ["ASSAY_HOME"] = str(home)
    # The sandboxes' base root takes a minute to build from Debian's archive: one build serves
    # every test session on the machine.
    os.environ.setdefault("ASSAY_ROOTS", "/var/tmp/assay-test-roots")
    return home


@pytest.fixture(scope="session", autouse=True)
def world_db_names() -> Iterator[str]:
    """SQLite unless a test asks for PostgreSQL; every database this session makes is named apart."""
    saved = {key: os.environ.get(key) for key in ("ASSAY_WORLD_DB", "ASSAY_WORLD_DB_PREFIX")}
    prefix = f"assaytest{uuid.uuid4().hex[:8]}"
    os.environ.pop("ASSAY_WORLD_DB", None)
    os.environ["ASSAY_WORLD_DB_PREFIX"] = prefix
    yield prefix
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(scope="session")
def postgres_url(world_db_names: str) -> Iterator[str]:
    """The server worlds run on; at the end of the session every database made here is dropped."""
    yield WORLD_POSTGRES
    from assay.world.postgres.server import Server

    server = Server(WORLD_POSTGRES, world_db_names, RuntimeError)
    # Each DROP DATABASE waits for a checkpoint, and drops made at once share one: a session's
    # dozens of templates went one by one in half a minute on a loaded machine.
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(partial(drop_database, world_db_names), server.databases()))
    server.drop_everything()  # what is left: the roles
    server.close()


def drop_database(prefix: str, name: str) -> None:
    """Drop one database of the session's, on a connection of its own."""
    from assay.world.postgres.server import Server

    server = Server(WORLD_POSTGRES, prefix, RuntimeError)
    try:
        server.drop_database(name)
    finally:
        server.close()


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """Each backend a world can run on, for the tests about what a world does."""
    return request.param


@pytest.fixture(scope="session")
def world_db(backend: str, request: pytest.FixtureRequest) -> str | None:
    """The `world_db` that runs a world on the backend under test: None for SQLite."""
    return request.getfixturevalue("postgres_url") if backend == "postgresql" else None


@pytest.fixture
def open_world(world_db: str | None) -> Iterator[Callable[..., Any]]:
    """`open_world(root)` opens a world on the backend under test; it is closed after the test.

    Worlds with the same data files share one snapshot (one template database on PostgreSQL).
    """
    from assay.runs import open_benchmark

    opened = []

    def open_(root: Path, *, build: bool = True) -> Any:
        benchmark = open_benchmark(root, build=build, world_db=world_db)
        opened.append(benchmark)
        return benchmark

    yield open_
    for benchmark in opened:
        benchmark.close()


@pytest.fixture
def reset() -> Iterator[Callable[[Any], Any]]:
    """`reset(world)`: a fresh live copy of the world, closed (its database dropped) after the test."""
    copies: list[Any] = []

    def reset_(world: Any) -> Any:
        copies.append(world.reset())
        return copies[-1]

    yield reset_
    for copy in copies:
        copy.close()


@pytest.fixture(scope="session")
def shop():
    from assay.runs import open_benchmark

    return open_benchmark(SHOP)


@pytest.fixture(scope="session")
def shop_on_postgres(postgres_url: str):
    """worlds/shop on PostgreSQL, its template built once for the whole session."""
    from assay.runs import open_benchmark

    return open_benchmark(SHOP, world_db=postgres_url)


@pytest.fixture(scope="session")
def any_shop(world_db: str | None, request: pytest.FixtureRequest):
    """worlds/shop on the backend under test (the session's shared SQLite or PostgreSQL one)."""
    return request.getfixturevalue("shop" if world_db is None else "shop_on_postgres")


def postgres_database() -> Iterator[str]:
    """A store URL on the local PostgreSQL server, for a database made now and dropped after."""
    import psycopg

    name = f"assay_store_{uuid.uuid4().hex[:12]}"
    admin = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield POSTGRES.format(database=name)
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def postgres_store() -> Iterator[str]:
    """A PostgreSQL store shared by the session's tests; each test keeps to its own runs."""
    yield from postgres_database()


@pytest.fixture
def empty_postgres_store() -> Iterator[str]:
    """A PostgreSQL store of this test's own, empty."""
    yield from postgres_database()
