"""A check on PostgreSQL cannot write, whatever its text, even with the static proof bypassed."""

from __future__ import annotations

import psycopg
import pytest

from assay.formats.checks import SqlCheck
from assay.formats.task import TaskSpec
from assay.verify.context import VerifyContext
from assay.verify.sql import run_sql_check
from assay.verify.views import ReadView
from assay.world.guard import QueryRefused, QueryTimeout

ESCAPES = [
    "SET TRANSACTION READ WRITE",
    "SELECT set_config('transaction_read_only', 'off', true)",
    "SELECT set_config('transaction_read_only', 'off', false)",
    "WITH gone AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM gone",
    "WITH moved AS (UPDATE orders SET status = 'cancelled' RETURNING 1) SELECT count(*) FROM moved",
    "SELECT 1; DELETE FROM orders",
    "DELETE FROM orders",
    "CREATE TEMP TABLE scratch (a INTEGER)",
]


@pytest.fixture
def frozen(shop_on_postgres):
    live = shop_on_postgres.world.reset()
    live.freeze()
    yield live
    live.close()


def _unchanged(live) -> None:
    assert live.db.value("SELECT count(*) FROM orders WHERE status <> 'cancelled'") == 9


@pytest.mark.parametrize("sql", ESCAPES)
def test_the_runtime_guard_refuses_writes(frozen, sql: str) -> None:
    with pytest.raises(QueryRefused, match=r"^refused: "):
        frozen.db.run_limited(2.0, sql, {})
    _unchanged(frozen)


def test_read_write_cannot_be_set_after_the_guard_began(frozen) -> None:
    """A session-level setting made by one check does not lift the next one's read-only."""
    relax = "SELECT set_config('default_transaction_read_only', 'off', false)"
    assert frozen.db.run_limited(2.0, relax, {})[1] == [("off",)]
    with pytest.raises(QueryRefused):
        frozen.db.run_limited(2.0, "WITH x AS (DELETE FROM orders RETURNING 1) SELECT 1", {})
    _unchanged(frozen)


def test_the_check_role_holds_only_select(frozen, postgres_url: str) -> None:
    """Outside the guard's transaction too: a read-write transaction as the role cannot write."""
    role = frozen.world.backend.server.check_role
    conninfo = frozen.world.backend.server.conninfo(frozen.db.name, check=True)
    with psycopg.connect(conninfo, autocommit=True) as connection:
        connection.execute("BEGIN READ WRITE")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            connection.execute("DELETE FROM orders")
        connection.execute("ROLLBACK")
        assert connection.info.parameter_status("session_authorization") == role
    _unchanged(frozen)


def test_a_slow_query_is_stopped(frozen) -> None:
    with pytest.raises(QueryTimeout, match=r"stopped after 0\.2s"):
        frozen.db.run_limited(0.2, "SELECT count(*) FROM generate_series(1, 100000000)", {})
    assert frozen.db.run_limited(2.0, "SELECT count(*) FROM orders", {}) == (["count(*)"], [(10,)])


def test_the_initial_state_is_read_only_too(shop_on_postgres) -> None:
    initial = shop_on_postgres.world.initial
    with pytest.raises(QueryRefused):
        initial.run_limited(2.0, "WITH x AS (DELETE FROM orders RETURNING 1) SELECT 1", {})
    assert initial.run_limited(2.0, "SELECT count(*) FROM orders", {})[1] == [(10,)]


def test_a_refused_check_fails_with_details(frozen, shop_on_postgres) -> None:
    """The check model is built directly, so nothing proved the SQL read-only beforehand."""
    check = SqlCheck(
        name="sneaky",
        sql="WITH gone AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM gone",
        expect=0,
    )
    task: TaskSpec = next(iter(shop_on_postgres.tasks.values()))
    context = VerifyContext(
        task=task,
        final=ReadView(frozen.db, 2.0),
        initial=ReadView(shop_on_postgres.world.initial, 2.0),
        agent_output="",
        request="",
        world_run=frozen.run,
    )
    run = run_sql_check(check, context)
    assert not run.passed
    assert run.details.startswith("the query was refused: ")
    _unchanged(frozen)


# What a check could do before inside its read-only transaction; each is refused now.
OUTSIDE_ITS_QUESTION = [
    "SELECT datname FROM pg_database",
    "SELECT count(*) FROM pg_stat_database",
    "SELECT count(*) FROM pg_stat_activity",
    "SELECT count(*) FROM pg_roles",
    "SELECT lo_create(0)",
    "SELECT pg_advisory_lock(1)",
    "SELECT pg_try_advisory_lock(1, 2)",
    "SELECT pg_notify('channel', 'x')",
    "SELECT txid_current()",
    "SELECT pg_current_xact_id()",
    "SELECT pg_terminate_backend(pg_backend_pid())",
    "ANALYZE",
    "ANALYZE orders",
    "NOTIFY channel",
]


@pytest.mark.parametrize("sql", OUTSIDE_ITS_QUESTION)
def test_the_check_role_may_only_ask_about_the_world(frozen, sql: str) -> None:
    with pytest.raises(QueryRefused, match=r"^refused: "):
        frozen.db.run_limited(2.0, sql, {})
    assert frozen.db.run_limited(2.0, "SELECT count(*) FROM orders", {})[1] == [(10,)]


def test_an_advisory_lock_taken_before_does_not_outlive_the_check(frozen) -> None:
    """The lock functions are revoked, so no check leaves a session lock behind."""
    with pytest.raises(QueryRefused):
        frozen.db.run_limited(2.0, "SELECT pg_advisory_lock(42)", {})
    admin = frozen.world.backend.server
    held = admin.command(
        psycopg.sql.SQL("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'")
    )
    assert held == [(0,)]
