"""A payment provider: charges, refunds and balances, with refunds capped by what was charged.

Charges made before the world starts can be declared with the option `charges_query`, a query on
the world's database returning `id` and `amount_cents` (and optionally `customer`).
"""

from __future__ import annotations

from typing import Any

from assay.errors import ServiceError
from assay.world.services.base import Service, canonical
from assay.world.services.kinds import service_kind


@service_kind
class Payments(Service):
    kind = "payments"
    options_known = frozenset({"charges_query"})
    sql_options = ("charges_query",)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._charges: dict[str, dict[str, Any]] | None = None

    def duplicate_key(self, operation: str, payload: dict[str, Any]) -> str:
        if operation == "refund":
            return canonical(["refund", payload.get("charge"), payload.get("amount")])
        if operation == "charge":
            return canonical(["charge", payload.get("customer"), payload.get("amount")])
        return super().duplicate_key(operation, payload)

    def handle(self, operation: str, payload: dict[str, Any]) -> dict[str, Any]:
        handlers = {"charge": self._charge, "refund": self._refund, "balance": self._balance}
        if operation not in handlers:
            raise ServiceError("payments.unknown_operation", f"payments has no {operation!r}")
        return handlers[operation](payload)

    def _charge(self, payload: dict[str, Any]) -> dict[str, Any]:
        amount = _amount(payload)
        charge = {"id": self.next_id("ch"), "amount": amount, "refunded": 0}
        charge["customer"] = payload.get("customer")
        self.charges[charge["id"]] = charge
        return {"id": charge["id"], "status": "succeeded", "amount": amount}

    def _refund(self, payload: dict[str, Any]) -> dict[str, Any]:
        amount = _amount(payload)
        charge_id = str(payload.get("charge", ""))
        charge = self.charges.get(charge_id)
        if charge is None:
            raise ServiceError("payments.no_such_charge", f"no charge {charge_id}")
        left = charge["amount"] - charge["refunded"]
        if amount > left:
            raise ServiceError(
                "payments.exceeds_charge",
                f"refund of {amount} exceeds the {left} left on {charge_id}",
            )
        charge["refunded"] += amount
        return {
            "id": self.next_id("re"),
            "status": "succeeded",
            "charge": charge_id,
            "amount": amount,
        }

    def _balance(self, payload: dict[str, Any]) -> dict[str, Any]:
        charge_id = str(payload.get("charge", ""))
        charge = self.charges.get(charge_id)
        if charge is None:
            raise ServiceError("payments.no_such_charge", f"no charge {charge_id}")
        return {"charge": charge_id, "amount": charge["amount"], "refunded": charge["refunded"]}

    @property
    def charges(self) -> dict[str, dict[str, Any]]:
        if self._charges is None:
            self._charges = {}
            query = self.options.get("charges_query")
            for row in self.world.db.rows(query) if query else []:
                self._charges[str(row["id"])] = {
                    "id": str(row["id"]),
                    "amount": int(row["amount_cents"]),
                    "refunded": 0,
                    "customer": row.get("customer"),
                }
        return self._charges


def _amount(payload: dict[str, Any]) -> int:
    amount = payload.get("amount")
    if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
        raise ServiceError(
            "payments.invalid_amount", f"amount must be a positive integer, not {amount!r}"
        )
    return amount
