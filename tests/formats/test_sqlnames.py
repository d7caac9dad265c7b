"""A check's SQL names only tables and columns that exist: aliases, CTEs and subqueries resolved."""

from __future__ import annotations

import pytest

from assay.formats.sqlnames import unknown_names
from assay.formats.sqltext import readonly_statement

SCHEMA = {
    "orders": ("id", "customer_id", "status", "total_cents"),
    "refunds": ("id", "order_id", "method", "amount_cents"),
    "customers": ("id", "email"),
    "sandbox_requests": ("id", "service", "operation", "payload"),
}

FAIR = [
    "SELECT count(*) FROM refunds WHERE order_id = :order AND method = 'card'",
    "SELECT count(*) FROM ORDERS WHERE STATUS = 'placed'",
    "SELECT count(*) FROM orders WHERE \"status\" = 'placed'",
    "SELECT r.amount_cents FROM refunds r JOIN orders o ON o.id = r.order_id",
    "SELECT count(*) FROM orders o, customers c WHERE o.customer_id = c.id AND email = 'a'",
    "WITH x AS (SELECT order_id AS oid FROM refunds) SELECT count(*) FROM x WHERE oid = 'A'",
    "WITH x AS (SELECT * FROM refunds) SELECT count(*) FROM x WHERE x.order_id = 'A'",
    "SELECT sum(t) FROM (SELECT total_cents AS t FROM orders) AS sub",
    "SELECT status, count(*) AS n FROM orders GROUP BY status HAVING n > 1 ORDER BY n",
    "SELECT count(*) FROM orders WHERE id IN (SELECT order_id FROM refunds)",
    "SELECT count(*) FROM orders o WHERE EXISTS "
    "(SELECT 1 FROM refunds r WHERE r.order_id = o.id AND customer_id = 'C-1')",
    "SELECT (SELECT count(*) FROM refunds WHERE refunds.order_id = o.id) FROM orders o",
    "SELECT count(*) FROM orders JOIN refunds USING (id)",
    "SELECT count(*) FROM sandbox_requests WHERE json_extract(payload, '$.to') = 'a'",
    "SELECT count(*) FROM sandbox_actions WHERE tool = 'send_email'",
    "SELECT count(*) FROM orders, json_each(orders.status) AS j WHERE j.value = 1",
    "SELECT count(*) FROM json_each('[1, 2]') WHERE value > 1",
    "SELECT count(*) FROM sqlite_master",
    "SELECT 1",
]

UNFAIR = [
    (
        "SELECT count(*) FROM refunds WHERE methd = 'card'",
        "unknown column 'methd' (tables read: refunds)",
    ),
    (
        "SELECT count(*) FROM refundz",
        "unknown table 'refundz' (tables: customers, orders, refunds)",
    ),
    (
        "SELECT r.id FROM refunds r JOIN orders o ON o.id = r.order_id WHERE o.statuss = 'x'",
        "unknown column orders.statuss (orders has: customer_id, id, status, total_cents)",
    ),
    (
        "SELECT id FROM refunds r JOIN orders o ON o.id = r.order_id",
        "ambiguous column 'id' (in orders, refunds)",
    ),
    (
        "WITH x AS (SELECT order_id AS oid FROM refunds) SELECT count(*) FROM x WHERE order_id = 'A'",
        "unknown column 'order_id' (tables read: x)",
    ),
    (
        "WITH x AS (SELECT order_id AS oid FROM refunds) SELECT count(*) FROM x WHERE x.order_id = 'A'",
        "unknown column x.order_id (x has: oid)",
    ),
    (
        "WITH refundz AS (SELECT 1 AS n) SELECT count(*) FROM refunds, refundz, ordrs",
        "unknown table 'ordrs' (tables: customers, orders, refunds)",
    ),
    (
        'SELECT count(*) FROM orders WHERE status = "shipped"',
        "unknown column 'shipped' (tables read: orders); a string is written in single quotes",
    ),
    (
        "SELECT sum(sub.tt) FROM (SELECT total_cents AS t FROM orders) AS sub",
        "unknown column sub.tt (sub has: t)",
    ),
    (
        "SELECT count(*) FROM orders o WHERE EXISTS "
        "(SELECT 1 FROM refunds WHERE refunds.order_id = o.idd)",
        "unknown column orders.idd (orders has: customer_id, id, status, total_cents)",
    ),
    (
        "SELECT count(*) FROM orders WHERE id IN (SELECT order_id FROM refunds WHERE amount > 0)",
        "unknown column 'amount' (tables read: refunds)",
    ),
    (
        "SELECT count(*) FROM orders UNION SELECT count(*) FROM refunds WHERE bogus = 1",
        "unknown column 'bogus' (tables read: refunds)",
    ),
    (
        "SELECT count(*) FROM orders WHERE nope.status = 'placed'",
        "unknown table or alias 'nope' in nope.status",
    ),
]


@pytest.mark.parametrize("sql", FAIR)
def test_names_that_exist_pass(sql):
    assert unknown_names(readonly_statement(sql), SCHEMA) == []


@pytest.mark.parametrize(("sql", "problem"), UNFAIR)
def test_each_unknown_name_is_reported_once(sql, problem):
    assert unknown_names(readonly_statement(sql), SCHEMA) == [problem]


def test_every_unknown_table_is_reported():
    sql = "SELECT count(*) FROM refundz JOIN ordrs ON refundz.id = ordrs.id"
    assert unknown_names(readonly_statement(sql), SCHEMA) == [
        "unknown table 'refundz' (tables: customers, orders, refunds)",
        "unknown table 'ordrs' (tables: customers, orders, refunds)",
    ]


def test_an_unknown_sandbox_table_is_not_flagged():
    sql = "SELECT count(*) FROM sandbox_future WHERE anything = 1"
    assert unknown_names(readonly_statement(sql), SCHEMA) == []
