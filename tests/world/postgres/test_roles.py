"""Tools on PostgreSQL write as their task run's own role: no superuser, no other database."""

from __future__ import annotations

import psycopg
import pytest

from assay.world.guard import QueryRefused


@pytest.fixture
def live(shop_on_postgres):
    live = shop_on_postgres.world.reset()
    yield live
    live.close()


# What the `postgres` superuser could do through a tool's connection, and this role cannot.
SUPERUSER_ONLY = [
    "COPY (SELECT 1) TO PROGRAM 'true'",
    "CREATE ROLE assay_intruder LOGIN SUPERUSER",
    "ALTER SYSTEM SET work_mem = '1GB'",
    "SELECT pg_read_file('/etc/hostname')",
    "SELECT count(*) FROM pg_database",
    "CREATE SCHEMA shadow",
    "CREATE TABLE public.extra (a INTEGER)",
]


@pytest.mark.parametrize("statement", SUPERUSER_ONLY)
def test_the_tools_connection_cannot_reach_past_its_database(live, statement: str) -> None:
    connection = live.db.connection
    assert connection.execute("SHOW is_superuser").fetchone() == ("off",)
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        connection.execute(statement)


def test_the_tools_role_is_the_task_runs_own(live) -> None:
    user = live.db.connection.info.user
    assert user == live.db.name
    assert user.startswith(live.world.backend.server.prefix + "_r_")


def test_another_task_runs_database_is_closed_to_it(shop_on_postgres, live) -> None:
    other = shop_on_postgres.world.reset()
    try:
        server = live.world.backend.server
        mine = live.db.connection.info
        for database in (other.db.name, shop_on_postgres.world.backend.snapshot.initial):
            conninfo = server.conninfo(database, login=(mine.user, mine.password))
            with pytest.raises(psycopg.OperationalError, match="permission denied for database"):
                psycopg.connect(conninfo).close()
    finally:
        other.close()


def test_the_world_still_reads_and_writes_as_that_role(live) -> None:
    before = live.db.value("SELECT count(*) FROM refunds")
    live.db.execute(
        "INSERT INTO refunds (order_id, amount_cents, method, receipt, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        "A-1042",
        100,
        "card",
        "re_x",
        "2026-03-02T09:00:00Z",
    )
    assert live.db.value("SELECT count(*) FROM refunds") == before + 1
    live.freeze()
    with pytest.raises(QueryRefused):
        live.db.execute("DELETE FROM refunds")


def test_its_role_goes_with_its_database(shop_on_postgres) -> None:
    live = shop_on_postgres.world.reset()
    server, role = live.world.backend.server, live.db.name
    live.close()
    assert not server.command(psycopg.sql.SQL("SELECT 1 FROM pg_roles WHERE rolname = %s"), [role])
