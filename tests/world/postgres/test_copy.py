"""A task run's copy on PostgreSQL: fresh from the template, written like SQLite, dropped after."""

from __future__ import annotations

import psycopg
import pytest

from assay.errors import ToolError
from assay.world.guard import QueryRefused
from assay.world.load import load_world

INSERT_CREDIT = (
    "INSERT INTO store_credits (customer_id, amount_cents, reason, created_at) VALUES (?, ?, ?, ?)"
)


def _exists(url: str, name: str) -> bool:
    with psycopg.connect(url) as connection:
        query = "SELECT 1 FROM pg_database WHERE datname = %s"
        return connection.execute(query, [name]).fetchone() is not None


def test_each_reset_starts_from_the_template_and_is_dropped(
    shop_on_postgres, postgres_url: str
) -> None:
    world = shop_on_postgres.world
    first = world.reset()
    first.db.execute("UPDATE orders SET status = 'cancelled'")
    second = world.reset()
    assert second.db.value("SELECT count(*) FROM orders WHERE status = 'cancelled'") == 1
    names = [first.db.name, second.db.name]
    first.close()
    second.close()
    assert [_exists(postgres_url, name) for name in names] == [False, False]


def test_writes_report_rowcount_and_lastrowid(shop_on_postgres) -> None:
    live = shop_on_postgres.world.reset()
    try:
        written = live.db.execute(INSERT_CREDIT, "C-1", 500, "goodwill", "2026-03-02T09:00:00Z")
        assert written == (1, 1)
        assert live.db.execute("UPDATE orders SET address = 'x' WHERE customer_id = ?", "C-2") == (
            3,
            1,
        )
    finally:
        live.close()


def test_rowids_are_numbered_as_sqlite_numbers_them(shop_on_postgres, shop) -> None:
    """A rolled-back insert frees its number on both backends (a sequence would skip it)."""
    ids = []
    for benchmark in (shop, shop_on_postgres):
        live = benchmark.world.reset()
        try:
            with pytest.raises(ToolError), live.db.savepoint():
                live.db.execute(INSERT_CREDIT, "C-1", 1, "undone", "t")
                raise ToolError("refused", "undo it")
            ids.append(live.db.execute(INSERT_CREDIT, "C-1", 2, "kept", "t").lastrowid)
            ids.append(live.db.value("SELECT max(id) FROM refunds"))
        finally:
            live.close()
    assert ids == [1, 1, 1, 1]


def test_values_come_back_as_on_sqlite(shop_on_postgres, shop) -> None:
    query = (
        "SELECT sum(total_cents), sum(total_cents) / 100.0, avg(total_cents), count(*), "
        "1 = 1, max(placed_at) FROM orders"
    )
    values = []
    for benchmark in (shop, shop_on_postgres):
        live = benchmark.world.reset()
        try:
            values.append(live.db.rows(query))
        finally:
            live.close()
    assert values[0] == values[1]
    assert [type(value) for value in values[1][0].values()] == [int, float, float, int, int, str]


def test_recorded_requests_keep_their_json_text(shop_on_postgres) -> None:
    live = shop_on_postgres.world.reset()
    try:
        live.services["email"].request("send", {"to": "a@example.com", "body": "hi"})
        live.flush()
        payload = live.db.value("SELECT payload FROM sandbox_requests")
        assert payload == '{"body":"hi","to":"a@example.com"}'
        query = "SELECT json_extract(payload, '$.to') FROM sandbox_requests WHERE payload LIKE ?"
        assert live.db.value(query, "%A@EXAMPLE%") == "a@example.com"
    finally:
        live.close()


def test_the_same_writes_hash_the_same_on_both_backends(shop_on_postgres, shop) -> None:
    hashes = []
    for benchmark in (shop, shop_on_postgres):
        live = benchmark.world.reset()
        try:
            live.db.execute(INSERT_CREDIT, "C-4", 1000, "late", "2026-03-02T09:01:00Z")
            live.db.execute(
                "UPDATE orders SET status = 'cancelled' WHERE id = :id", {"id": "B-2001"}
            )
            live.services["payments"].request("refund", {"charge": "ch_1042b", "amount": 4200})
            live.record_action("call", "refund_payment", {"order_id": "A-1042"}, "OK", "op-1")
            live.freeze()
            hashes.append(live.db.state_hash())
        finally:
            live.close()
    assert hashes[0] == hashes[1]
    untouched = shop_on_postgres.world.reset()
    try:
        untouched.freeze()
        assert untouched.db.state_hash() != hashes[1]
    finally:
        untouched.close()


def test_a_frozen_copy_refuses_writes(shop_on_postgres) -> None:
    live = shop_on_postgres.world.reset()
    try:
        live.freeze()
        with pytest.raises(QueryRefused):
            live.db.execute("DELETE FROM orders")
        assert live.db.value("SELECT count(*) FROM orders") == 10
    finally:
        live.close()


def test_a_server_that_cannot_be_reached_is_one_line_naming_the_option(tmp_path) -> None:
    from assay.errors import UsageError

    world = load_world("worlds/shop", "postgresql://postgres@127.0.0.1:1/postgres")
    with pytest.raises(UsageError, match=r"^--world-db: cannot connect to PostgreSQL: "):
        _ = world.snapshot
