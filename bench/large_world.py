"""A task run's cost on a large world: it should follow the rows a task changes, not the world's size.

Run `python bench/large_world.py`; it prints one JSON object. It generates a retail-like world of
eight tables (over 3 MB, over 50,000 rows) with 100 tasks whose reference solutions make 1 to 5
writes, checked row by row plus one rule that reads a whole table. It measures:
- `whole_process`: `assay run --agent reference --workers 1 --json` as a process of its own, for 1
  and 10 repeats of every task (100 and 1,000 task runs): wall time per task run and peak memory.
- `in_process`: the same task runs in this process, and the share of reset, checks, final-state
  hash and store in each; `tools_and_rest` is the agent's actions, scoring and the result.
Goal (not asserted anywhere): ≤ 5 ms per task run whole-process, memory flat in the task runs.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

WORLD = """
name = "retail"
version = "1"
tools = ["tools.py"]

[database]
schema = "schema.sql"
seed = ["users.csv", "products.csv", "variants.csv", "orders.csv", "order_items.csv",
        "payments.csv", "shipments.csv", "gift_cards.csv"]

[roles.agent]
tools = ["get_order", "cancel_order", "change_address", "exchange_item", "add_credit"]
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
CREATE TABLE shipments (id INTEGER PRIMARY KEY, order_id TEXT, carrier TEXT, tracking TEXT,
                        status TEXT);
CREATE TABLE gift_cards (id INTEGER PRIMARY KEY, user_id TEXT, balance_cents INTEGER);
"""

TOOLS = '''
from assay import ToolError, tool


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
    "users": 6000,
    "products": 1000,
    "variants": 4000,
    "orders": 12000,
    "order_items": 24000,
    "payments": 12000,
    "shipments": 6000,
    "gift_cards": 6000,
}
TASKS = 100


def write_world(root: Path) -> tuple[Path, int]:
    """The world's files in `root`; returns it and the number of rows seeded."""
    pick = random.Random(7)
    (root / "tasks").mkdir(parents=True)
    (root / "world.toml").write_text(WORLD)
    (root / "schema.sql").write_text(SCHEMA)
    (root / "tools.py").write_text(TOOLS)
    tables = _tables(pick)
    for table, (header, rows) in tables.items():
        lines = [",".join(header)] + [",".join(map(str, row)) for row in rows]
        (root / f"{table}.csv").write_text("\n".join(lines) + "\n")
    cancelled = sum(1 for row in tables["orders"][1] if row[2] == "cancelled")
    pending = [row for row in tables["orders"][1] if row[2] == "pending"]
    pick.shuffle(pending)
    for number in range(TASKS):
        (root / "tasks" / f"t{number:03}.toml").write_text(
            _task(pick, number, pending[number], tables, cancelled)
        )
    return root, sum(len(rows) for _, rows in tables.values())


def _tables(pick: random.Random) -> dict[str, tuple[list[str], list[tuple]]]:
    users = [
        (
            f"U{n:05}",
            f"User {n}",
            f"user{n}@example.com",
            f"{n} Main Street",
            "Springfield",
            f"{n % 99999:05}",
        )
        for n in range(SIZES["users"])
    ]
    products = [
        (n, f"Product {n}", f"cat{n % 40}", 500 + n) for n in range(1, SIZES["products"] + 1)
    ]
    variants = [
        (
            n,
            1 + n % SIZES["products"],
            pick.choice(["red", "blue", "black"]),
            pick.choice("SML"),
            50,
        )
        for n in range(1, SIZES["variants"] + 1)
    ]
    orders = [
        (
            f"O{n:06}",
            users[n % len(users)][0],
            pick.choice(["pending", "delivered", "cancelled"]),
            pick.randrange(1000, 90000),
            f"2026-0{1 + n % 9}-1{n % 10}T10:00:00Z",
        )
        for n in range(SIZES["orders"])
    ]
    items = [
        (
            n,
            orders[(n - 1) // 2][0],
            pick.randrange(1, SIZES["variants"] + 1),
            1 + n % 3,
            1000 + n % 500,
        )
        for n in range(1, SIZES["order_items"] + 1)
    ]
    payments = [
        (n, orders[n - 1][0], "charge", orders[n - 1][3], "card")
        for n in range(1, SIZES["payments"] + 1)
    ]
    shipments = [
        (n, orders[n - 1][0], "ups", f"1Z{n:012}", "in_transit")
        for n in range(1, SIZES["shipments"] + 1)
    ]
    cards = [(n, users[n - 1][0], 0) for n in range(1, SIZES["gift_cards"] + 1)]
    return {
        "users": (["id", "name", "email", "address", "city", "zip"], users),
        "products": (["id", "name", "category", "price_cents"], products),
        "variants": (["id", "product_id", "color", "size", "stock"], variants),
        "orders": (["id", "user_id", "status", "total_cents", "placed_at"], orders),
        "order_items": (["id", "order_id", "variant_id", "quantity", "price_cents"], items),
        "payments": (["id", "order_id", "kind", "amount_cents", "method"], payments),
        "shipments": (["id", "order_id", "carrier", "tracking", "status"], shipments),
        "gift_cards": (["id", "user_id", "balance_cents"], cards),
    }


def _task(pick: random.Random, number: int, order: tuple, tables: dict, cancelled: int) -> str:
    """One task of 1 to 5 writes: an address change, a cancellation (2), an exchange (3), or more."""
    order_id, user_id, _, total, _ = order
    item = next(row for row in tables["order_items"][1] if row[1] == order_id)
    new_variant = pick.randrange(1, SIZES["variants"] + 1)
    kind = number % 4
    steps = [f'{{ call = "get_order", args = {{ order_id = "{order_id}" }} }}']
    checks = []
    if kind in (0, 3):  # 1 write
        steps.append(
            f'{{ call = "change_address", args = {{ user_id = "{user_id}", address = "1 New Road" }} }}'
        )
        checks.append(
            (
                "The address is changed",
                f"SELECT address || '|' || city FROM users WHERE id = '{user_id}'",
                '"1 New Road|Springfield"',
            )
        )
    if kind in (1, 3):  # 2 writes
        steps.append(f'{{ call = "cancel_order", args = {{ order_id = "{order_id}" }} }}')
        checks.append(
            (
                "The order is cancelled",
                f"SELECT status || '|' || total_cents FROM orders WHERE id = '{order_id}'",
                f'"cancelled|{total}"',
            )
        )
        checks.append(
            (
                "One refund of the total",
                f"SELECT count(*) FROM payments WHERE order_id = '{order_id}' AND kind = 'refund' AND amount_cents = {total}",
                "1",
            )
        )
    if kind == 2:  # 3 writes
        steps.append(
            f'{{ call = "exchange_item", args = {{ item_id = {item[0]}, variant_id = {new_variant} }} }}'
        )
        checks.append(
            (
                "The item is exchanged",
                f"SELECT variant_id || '|' || quantity FROM order_items WHERE id = {item[0]}",
                f'"{new_variant}|{item[3]}"',
            )
        )
    if kind == 3:  # 1 more: 4 in all, 5 with the exchange below on every eighth
        steps.append(f'{{ call = "add_credit", args = {{ user_id = "{user_id}", cents = 500 }} }}')
        checks.append(
            (
                "The credit is added",
                f"SELECT balance_cents FROM gift_cards WHERE user_id = '{user_id}'",
                "500",
            )
        )
    rule = (
        "No other order cancelled",
        "SELECT count(*) FROM orders WHERE status = 'cancelled'",
        str(cancelled + (kind in (1, 3))),
    )
    body = "\n".join(
        f'[[checks]]\nname = "{name}"\nsql = "{sql}"\nexpect = {expect}\n'
        for name, sql, expect in checks
    )
    return (
        f'title = "Task {number}"\nrole = "agent"\n\n[customer]\nrequest = "Please help with {order_id}."\n\n'
        f'{body}\n[[checks]]\nname = "{rule[0]}"\ntype = "rule"\nsql = "{rule[1]}"\nexpect = {rule[2]}\n\n'
        f"[solution]\nsteps = [\n  " + ",\n  ".join([*steps, '{ finish = "Done." }']) + "\n]\n"
    )


def whole_process(root: Path, repeats: int, scratch: Path) -> dict[str, float]:
    """`assay run` in a process of its own: seconds per task run and peak memory (MiB)."""
    assay = str(Path(sys.executable).parent / "assay")
    store = scratch / f"records-{repeats}.db"
    command = [
        assay,
        "run",
        str(root),
        "--repeats",
        str(repeats),
        "--workers",
        "1",
        "--json",
        "--store",
        str(store),
    ]
    started = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"assay run failed: {process.stderr.read().decode()[-2000:]}")
    runs = TASKS * repeats
    return {
        "task_runs": runs,
        "ms_per_task_run": round(elapsed / runs * 1000, 2),
        "peak_mib": round(usage.ru_maxrss / 1024, 1),
    }


def in_process(root: Path, scratch: Path, repeats: int = 3) -> dict[str, float]:
    """The same task runs in this process, with the time spent in each part."""
    from assay.runs import open_benchmark, prepare
    from assay.runs.execute import SerialExecutor
    from assay.runs.record import record_run
    from assay.runs.store import open_store

    spent: dict[str, float] = defaultdict(float)
    _time_parts(spent)
    benchmark = open_benchmark(root)
    planned = prepare(benchmark, "reference", repeats=repeats)
    with open_store(str(scratch / "in-process.db")) as store:
        warm = prepare(benchmark, "reference")[:20]  # statement caches, validators
        record_run(store, benchmark, "reference", warm, executor=SerialExecutor())
        spent.clear()
        started = time.perf_counter()
        outcome = record_run(store, benchmark, "reference", planned, executor=SerialExecutor())
        elapsed = time.perf_counter() - started
    rewards = {run.reward for run in outcome.task_runs}
    assert rewards == {1}, outcome.benchmark_run
    runs = len(planned)
    parts = {name: round(seconds / runs * 1000, 3) for name, seconds in spent.items()}
    parts["tools_and_rest"] = round(elapsed / runs * 1000 - sum(parts.values()), 3)
    return {"task_runs": runs, "ms_per_task_run": round(elapsed / runs * 1000, 3), "ms": parts}


def _time_parts(spent: dict[str, float]) -> None:
    """Wrap the functions that do each part so that their time adds up in `spent`."""
    from importlib import import_module

    from assay.world.database import SqliteCopy
    from assay.world.live import World

    def timed(owner: object, name: str, part: str) -> None:
        inner = getattr(owner, name)

        def wrapper(*args, **kwargs):
            started = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[part] += time.perf_counter() - started

        setattr(owner, name, wrapper)

    timed(World, "reset", "reset")
    timed(import_module("assay.runs.grade"), "run_checks", "checks")  # the package hides it
    timed(SqliteCopy, "state_hash", "hash")
    timed(
        import_module("assay.runs.store.batch"), "commit", "store"
    )  # where a batch fills, or on the clock


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch)
        os.environ["ASSAY_HOME"] = str(home / "home")
        root, rows = write_world(home / "retail")
        from assay.runs import open_benchmark

        size_mb = len(open_benchmark(root).world.snapshot.image) / 1024 / 1024
        figures = {
            "world": {"size_mb": round(size_mb, 2), "rows": rows, "tasks": TASKS},
            "whole_process": [whole_process(root, repeats, home) for repeats in (1, 10)],
            "in_process": in_process(root, home),
        }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
