from __future__ import annotations

import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from worldkit import SHOP

POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/{database}"


@pytest.fixture(scope="session", autouse=True)
def assay_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Snapshots and records of the test session go to a temporary directory."""
    home = tmp_path_factory.mktemp("assay-home")
    os.environ["ASSAY_HOME"] = str(home)
    return home


@pytest.fixture(scope="session")
def shop():
    from assay.runs import open_benchmark

    return open_benchmark(SHOP)


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
