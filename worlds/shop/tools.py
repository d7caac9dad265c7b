"""The shop's tools. Each is a typed function; its signature is what an agent sees."""

from __future__ import annotations

from typing import Literal

from assay import ToolError, tool


def _order(world, order_id: str) -> dict:
    order = world.db.row("SELECT * FROM orders WHERE id = ?", order_id)
    if order is None:
        raise ToolError("not_found", f"no order {order_id}")
    return order


def _stamp(world) -> str:
    return world.now().isoformat().replace("+00:00", "Z")


@tool
def find_order(world, order_id: str) -> dict:
    """Look up an order with its charges, refunds and shipment."""
    order = _order(world, order_id)
    order["charges"] = world.db.rows(
        "SELECT id, amount_cents, created_at FROM charges WHERE order_id = ? ORDER BY id", order_id
    )
    order["refunds"] = world.db.rows(
        "SELECT charge_id, amount_cents, method, receipt FROM refunds WHERE order_id = ? ORDER BY id",
        order_id,
    )
    order["shipment"] = world.db.row(
        "SELECT carrier, tracking FROM shipments WHERE order_id = ?", order_id
    )
    return order


@tool
def find_customer(world, email: str) -> dict:
    """Look up a customer by email address, with their orders."""
    customer = world.db.row("SELECT * FROM customers WHERE lower(email) = lower(?)", email)
    if customer is None:
        raise ToolError("not_found", f"no customer with email {email}")
    customer["orders"] = world.db.rows(
        "SELECT id, status, total_cents, placed_at, delivered_at FROM orders "
        "WHERE customer_id = ? ORDER BY placed_at",
        customer["id"],
    )
    return customer


@tool(writes=True)
def refund_payment(
    world,
    order_id: str,
    amount_cents: int,
    method: Literal["card", "credit"] = "card",
    charge_id: str | None = None,
) -> dict:
    """Refund all or part of an order's payment, to the card it was charged on or as store credit.

    For a card refund, name the charge to refund; it defaults to the order's latest charge.
    """
    order = _order(world, order_id)
    if amount_cents <= 0:
        raise ToolError("invalid_amount", "a refund must be a positive number of cents")
    if method == "credit":
        world.db.execute(
            "INSERT INTO store_credits (customer_id, amount_cents, reason, created_at) VALUES (?, ?, ?, ?)",
            order["customer_id"],
            amount_cents,
            f"refund for {order_id}",
            _stamp(world),
        )
        receipt = f"credit_{order_id}_{amount_cents}"
        charge_id = None
    else:
        if charge_id is None:
            charge_id = world.db.value(
                "SELECT id FROM charges WHERE order_id = ? ORDER BY created_at DESC LIMIT 1",
                order_id,
            )
        owner = world.db.value("SELECT order_id FROM charges WHERE id = ?", charge_id)
        if owner != order_id:
            raise ToolError("not_found", f"order {order_id} has no charge {charge_id}")
        answer = world.services["payments"].request(
            "refund", {"charge": charge_id, "amount": amount_cents}
        )
        receipt = answer["id"]
    world.db.execute(
        "INSERT INTO refunds (order_id, charge_id, amount_cents, method, receipt, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        order_id,
        charge_id,
        amount_cents,
        method,
        receipt,
        _stamp(world),
    )
    return {"refund": receipt, "order_id": order_id, "amount_cents": amount_cents, "method": method}


@tool(writes=True)
def cancel_order(world, order_id: str) -> dict:
    """Cancel an order that has not shipped yet."""
    order = _order(world, order_id)
    if order["status"] != "placed":
        raise ToolError(
            "not_cancellable",
            f"order {order_id} is {order['status']}; only placed orders can be cancelled",
        )
    world.db.execute("UPDATE orders SET status = 'cancelled' WHERE id = ?", order_id)
    return {"order_id": order_id, "status": "cancelled"}


@tool(writes=True)
def update_address(world, order_id: str, address: str) -> dict:
    """Change the delivery address of an order that has not shipped yet."""
    order = _order(world, order_id)
    if order["status"] != "placed":
        raise ToolError(
            "not_changeable", f"order {order_id} is {order['status']}; its address is fixed"
        )
    if not address.strip():
        raise ToolError("invalid_address", "the address is empty")
    world.db.execute("UPDATE orders SET address = ? WHERE id = ?", address.strip(), order_id)
    return {"order_id": order_id, "address": address.strip()}


@tool(writes=True)
def issue_store_credit(world, customer_id: str, amount_cents: int, reason: str) -> dict:
    """Give a customer store credit, for example as a goodwill gesture."""
    if world.db.row("SELECT id FROM customers WHERE id = ?", customer_id) is None:
        raise ToolError("not_found", f"no customer {customer_id}")
    if not 0 < amount_cents <= 5000:
        raise ToolError("invalid_amount", "store credit is between 1 and 5000 cents")
    written = world.db.execute(
        "INSERT INTO store_credits (customer_id, amount_cents, reason, created_at) VALUES (?, ?, ?, ?)",
        customer_id,
        amount_cents,
        reason,
        _stamp(world),
    )
    return {
        "credit_id": written.lastrowid,
        "customer_id": customer_id,
        "amount_cents": amount_cents,
    }


@tool(writes=True)
def send_email(world, to: str, subject: str, body: str) -> dict:
    """Send an email from the support address."""
    answer = world.services["email"].request("send", {"to": to, "subject": subject, "body": body})
    return {"message_id": answer["id"], "to": to}


@tool(writes=True)
def close_account(world, customer_id: str) -> dict:
    """Close a customer's account."""
    if (
        world.db.execute(
            "UPDATE customers SET status = 'closed' WHERE id = ?", customer_id
        ).rowcount
        == 0
    ):
        raise ToolError("not_found", f"no customer {customer_id}")
    return {"customer_id": customer_id, "status": "closed"}
