"""Writes a retail-shaped world the way users build them: nine tables, about 1 MB, about 100 tasks.

Each task makes about six tool calls (two reads, four writes) and is graded by about eighteen SQL
checks that each read one row by its key. The same seed always writes the same files.
"""

from __future__ import annotations

import random
from pathlib import Path

WORLD = """
name = "retail"
version = "1"
tools = ["tools.py"]

[database]
schema = "schema.sql"
seed = ["users.csv", "products.csv", "variants.csv", "orders.csv", "order_items.csv",
        "payments.csv", "shipments.csv", "gift_cards.csv", "addresses.csv"]

[roles.agent]
tools = ["get_user", "get_order", "cancel_order", "change_address", "exchange_item", "add_credit"]
"""

SCHEMA = """
CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT, email TEXT, address TEXT, city TEXT, zip TEXT);
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT, category TEXT, price_cents INTEGER);
CREATE TABLE variants (id INTEGER PRIMARY KEY, product_id INTEGER, color TEXT, size TEXT,
                       stock INTEGER);
CREATE TABLE orders (id TEXT PRIMARY KEY, user_id TEXT, status TEXT, total_cents INTEGER,
                     placed_at TEXT);
CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id TEXT, variant_id INTEGER,
                          quantity INTEGER, price_cents INTEGER);
CREATE INDEX order_items_order ON order_items(order_id);
CREATE TABLE payments (id INTEGER PRIMARY KEY, order_id TEXT, kind TEXT, amount_cents INTEGER,
                       method TEXT);
CREATE INDEX payments_order ON payments(order_id);
CREATE TABLE shipments (id INTEGER PRIMARY KEY, order_id TEXT, carrier TEXT, tracking TEXT,
                        status TEXT);
CREATE INDEX shipments_order ON shipments(order_id);
CREATE TABLE gift_cards (id INTEGER PRIMARY KEY, user_id TEXT UNIQUE, balance_cents INTEGER);
CREATE TABLE addresses (id INTEGER PRIMARY KEY, user_id TEXT, line TEXT, city TEXT, zip TEXT);
CREATE INDEX addresses_user ON addresses(user_id);
"""

TOOLS = '''
from assay import ToolError, tool


@tool
def get_user(world, user_id: str) -> dict:
    """A user with their gift card balance."""
    user = world.db.row("SELECT * FROM users WHERE id = ?", user_id)
    if user is None:
        raise ToolError("not_found", f"no user {user_id}")
    card = world.db.row("SELECT balance_cents FROM gift_cards WHERE user_id = ?", user_id)
    user["gift_card_cents"] = card["balance_cents"] if card else 0
    return user


@tool
def get_order(world, order_id: str) -> dict:
    """An order with its items."""
    order = world.db.row("SELECT * FROM orders WHERE id = ?", order_id)
    if order is None:
        raise ToolError("not_found", f"no order {order_id}")
    order["items"] = world.db.rows("SELECT * FROM order_items WHERE order_id = ?", order_id)
    return order


@tool(writes=True)
def cancel_order(world, order_id: str) -> dict:
    """Cancel a pending order and refund its payment."""
    order = world.db.row("SELECT * FROM orders WHERE id = ?", order_id)
    if order is None or order["status"] != "pending":
        raise ToolError("not_cancellable", f"order {order_id} is not pending")
    world.db.execute("UPDATE orders SET status = 'cancelled' WHERE id = ?", order_id)
    world.db.execute(
        "INSERT INTO payments (order_id, kind, amount_cents, method) VALUES (?, 'refund', ?, 'card')",
        order_id, order["total_cents"],
    )
    world.db.execute("UPDATE shipments SET status = 'stopped' WHERE order_id = ?", order_id)
    return {"order_id": order_id, "status": "cancelled"}


@tool(writes=True)
def change_address(world, user_id: str, address: str) -> dict:
    """Change a user's address."""
    world.db.execute("UPDATE users SET address = ? WHERE id = ?", address, user_id)
    return {"user_id": user_id, "address": address}


@tool(writes=True)
def exchange_item(world, item_id: int, variant_id: int) -> dict:
    """Exchange an item for another variant, moving one unit of stock each way."""
    item = world.db.row("SELECT * FROM order_items WHERE id = ?", item_id)
    if item is None:
        raise ToolError("not_found", f"no item {item_id}")
    world.db.execute("UPDATE order_items SET variant_id = ? WHERE id = ?", variant_id, item_id)
    world.db.execute("UPDATE variants SET stock = stock + 1 WHERE id = ?", item["variant_id"])
    world.db.execute("UPDATE variants SET stock = stock - 1 WHERE id = ?", variant_id)
    return {"item_id": item_id, "variant_id": variant_id}


@tool(writes=True)
def add_credit(world, user_id: str, cents: int) -> dict:
    """Add credit to a user's gift card."""
    world.db.execute(
        "UPDATE gift_cards SET balance_cents = balance_cents + ? WHERE user_id = ?", cents, user_id
    )
    return {"user_id": user_id, "cents": cents}
'''

SIZES = {
    "users": 1800,
    "products": 300,
    "variants": 1200,
    "orders": 3600,
    "order_items": 7200,
    "payments": 3600,
    "shipments": 3600,
    "gift_cards": 1800,
    "addresses": 1800,
}
TASKS = 103
STOCK = 50


def write_world(root: Path, seed: int = 7) -> Path:
    """The world's files in `root` (made), the same for the same `seed`; returns `root`."""
    pick = random.Random(seed)
    (root / "tasks").mkdir(parents=True)
    (root / "world.toml").write_text(WORLD)
    (root / "schema.sql").write_text(SCHEMA)
    (root / "tools.py").write_text(TOOLS)
    tables = _tables(pick)
    for table, (header, rows) in tables.items():
        lines = [",".join(header)] + [",".join(map(str, row)) for row in rows]
        (root / f"{table}.csv").write_text("\n".join(lines) + "\n")
    pending = [row for row in tables["orders"][1] if row[2] == "pending"]
    pick.shuffle(pending)
    items = {}
    for item in tables["order_items"][1]:
        items.setdefault(item[1], item)
    for number in range(TASKS):
        order = pending[number]
        (root / "tasks" / f"t{number:03}.toml").write_text(
            _task(pick, number, order, items[order[0]], tables)
        )
    return root


def _tables(pick: random.Random) -> dict[str, tuple[list[str], list[tuple]]]:
    users = [
        (f"U{n:05}", f"User {n}", f"user{n}@example.com", f"{n} Main Street", "Springfield",
         f"{n % 99999:05}")
        for n in range(SIZES["users"])
    ]  # fmt: skip
    products = [
        (n, f"Product {n}", f"cat{n % 40}", 500 + n) for n in range(1, SIZES["products"] + 1)
    ]
    variants = [
        (n, 1 + n % SIZES["products"], pick.choice(["red", "blue", "black"]), pick.choice("SML"), STOCK)
        for n in range(1, SIZES["variants"] + 1)
    ]  # fmt: skip
    orders = [
        (f"O{n:06}", users[n % len(users)][0], pick.choice(["pending", "delivered", "cancelled"]),
         pick.randrange(1000, 90000), f"2026-0{1 + n % 9}-1{n % 10}T10:00:00Z")
        for n in range(SIZES["orders"])
    ]  # fmt: skip
    items = [
        (n, orders[(n - 1) // 2][0], pick.randrange(1, SIZES["variants"] + 1), 1 + n % 3,
         1000 + n % 500)
        for n in range(1, SIZES["order_items"] + 1)
    ]  # fmt: skip
    payments = [
        (n, orders[n - 1][0], "charge", orders[n - 1][3], "card")
        for n in range(1, SIZES["payments"] + 1)
    ]
    shipments = [
        (n, orders[n - 1][0], "ups", f"1Z{n:012}", "in_transit")
        for n in range(1, SIZES["shipments"] + 1)
    ]
    cards = [(n, users[n - 1][0], 0) for n in range(1, SIZES["gift_cards"] + 1)]
    addresses = [
        (n, users[n - 1][0], f"{n} Side Road", "Shelbyville", f"{n:05}")
        for n in range(1, SIZES["addresses"] + 1)
    ]
    return {
        "users": (["id", "name", "email", "address", "city", "zip"], users),
        "products": (["id", "name", "category", "price_cents"], products),
        "variants": (["id", "product_id", "color", "size", "stock"], variants),
        "orders": (["id", "user_id", "status", "total_cents", "placed_at"], orders),
        "order_items": (["id", "order_id", "variant_id", "quantity", "price_cents"], items),
        "payments": (["id", "order_id", "kind", "amount_cents", "method"], payments),
        "shipments": (["id", "order_id", "carrier", "tracking", "status"], shipments),
        "gift_cards": (["id", "user_id", "balance_cents"], cards),
        "addresses": (["id", "user_id", "line", "city", "zip"], addresses),
    }  # fmt: skip


def _task(pick: random.Random, number: int, order: tuple, item: tuple, tables: dict) -> str:
    """Six calls (two reads, four writes) and eighteen checks that each read a row by its key."""
    order_id, user_id, _, total, placed = order
    variant = pick.randrange(1, SIZES["variants"] + 1)
    while variant == item[2]:
        variant = pick.randrange(1, SIZES["variants"] + 1)
    credit = 100 * (1 + number % 9)
    user = next(row for row in tables["users"][1] if row[0] == user_id)
    steps = [
        f'{{ call = "get_user", args = {{ user_id = "{user_id}" }} }}',
        f'{{ call = "get_order", args = {{ order_id = "{order_id}" }} }}',
        f'{{ call = "change_address", args = {{ user_id = "{user_id}", address = "{number} New Road" }} }}',
        f'{{ call = "cancel_order", args = {{ order_id = "{order_id}" }} }}',
        f'{{ call = "exchange_item", args = {{ item_id = {item[0]}, variant_id = {variant} }} }}',
        f'{{ call = "add_credit", args = {{ user_id = "{user_id}", cents = {credit} }} }}',
    ]
    user_where, order_where = f"users WHERE id = '{user_id}'", f"orders WHERE id = '{order_id}'"
    checks = [
        ("The address is changed", f"SELECT address FROM {user_where}", f'"{number} New Road"'),
        ("The city is kept", f"SELECT city FROM {user_where}", f'"{user[4]}"'),
        ("The zip is kept", f"SELECT zip FROM {user_where}", f'"{user[5]}"'),
        ("The email is kept", f"SELECT email FROM {user_where}", f'"{user[2]}"'),
        ("The name is kept", f"SELECT name FROM {user_where}", f'"{user[1]}"'),
        ("The order is cancelled", f"SELECT status FROM {order_where}", '"cancelled"'),
        ("The total is kept", f"SELECT total_cents FROM {order_where}", str(total)),
        ("The order date is kept", f"SELECT placed_at FROM {order_where}", f'"{placed}"'),
        ("The order keeps its customer", f"SELECT user_id FROM {order_where}", f'"{user_id}"'),
        ("The shipment is stopped", f"SELECT status FROM shipments WHERE order_id = '{order_id}'", '"stopped"'),
        ("The charge is kept", f"SELECT amount_cents FROM payments WHERE order_id = '{order_id}' AND kind = 'charge'", str(total)),
        ("The refund is the total", f"SELECT amount_cents FROM payments WHERE order_id = '{order_id}' AND kind = 'refund'", str(total)),
        ("The item is exchanged", f"SELECT variant_id FROM order_items WHERE id = {item[0]}", str(variant)),
        ("The quantity is kept", f"SELECT quantity FROM order_items WHERE id = {item[0]}", str(item[3])),
        ("The old variant is restocked", f"SELECT stock FROM variants WHERE id = {item[2]}", str(STOCK + 1)),
        ("The new variant is taken", f"SELECT stock FROM variants WHERE id = {variant}", str(STOCK - 1)),
        ("The credit is added", f"SELECT balance_cents FROM gift_cards WHERE user_id = '{user_id}'", str(credit)),
        ("The saved address is kept", f"SELECT line FROM addresses WHERE user_id = '{user_id}'", f'"{int(user_id[1:]) + 1} Side Road"'),
    ]  # fmt: skip
    body = "\n".join(
        f'[[checks]]\nname = "{name}"\nsql = "{sql}"\nexpect = {expect}\n'
        for name, sql, expect in checks
    )
    return (
        f'title = "Task {number}"\nrole = "agent"\n\n[customer]\nrequest = "Please help with {order_id}."\n\n'
        f"{body}\n[solution]\nsteps = [\n  "
        + ",\n  ".join([*steps, '{ finish = "Done." }'])
        + "\n]\n"
    )
