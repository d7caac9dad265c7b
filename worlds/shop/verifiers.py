"""The shop's Python verifiers, registered by being listed in world.toml."""

from __future__ import annotations

from assay import check, optional, verifier


@verifier("VER-001", name="A $10 credit for the late delivery, confirmed by email")
def late_delivery_credit(final, initial, ctx):
    customer = initial.row("SELECT id, email FROM customers WHERE id = 'C-4'")
    before = initial.value("SELECT count(*) FROM store_credits")
    credits = final.rows("SELECT customer_id, amount_cents, reason FROM store_credits ORDER BY id")[
        before:
    ]
    theirs = [credit for credit in credits if credit["customer_id"] == customer["id"]]
    mails = [m for m in final.requests("email") if m["payload"]["to"] == customer["email"]]
    return [
        check(
            "The customer received exactly $10 of new store credit",
            sum(credit["amount_cents"] for credit in theirs) == 1000,
            f"{sum(c['amount_cents'] for c in theirs)} cents credited to {customer['id']}",
        ),
        check(
            "A confirmation email went to the customer",
            len(mails) >= 1,
            f"{len(mails)} emails to {customer['email']}",
        ),
        optional(
            "No credit went to anyone else",
            len(theirs) == len(credits),
            f"{len(credits) - len(theirs)} credits to other customers",
        ),
        optional(
            "The credit's reason names the late delivery",
            any("late" in credit["reason"].lower() for credit in theirs),
            "reasons: " + ", ".join(repr(c["reason"]) for c in theirs) if theirs else "no credit",
        ),
    ]
