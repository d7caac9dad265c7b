"""A tool's signature is its argument schema; arguments are validated before it runs."""

from __future__ import annotations

from typing import Literal

import pytest

from assay import tool
from assay.world.tools import InvalidArguments


@tool(writes=True)
def refund(
    world,
    order_id: str,
    amount_cents: int,
    method: Literal["card", "credit"] = "card",
    note: str | None = None,
) -> dict:
    """Refund an order.

    Only a paid order can be refunded, and never beyond what was paid.
    """
    return {"order_id": order_id}


def test_schema_from_signature():
    assert refund.name == "refund"
    assert refund.writes is True
    assert refund.describe() == {
        "name": "refund",
        "description": "Refund an order.\n\nOnly a paid order can be refunded, and never beyond "
        "what was paid.",
        "writes": True,
        "parameters": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "order_id": {"type": "string"},
                "amount_cents": {"type": "integer"},
                "method": {"enum": ["card", "credit"], "type": "string", "default": "card"},
                "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            },
            "required": ["order_id", "amount_cents"],
        },
    }


def test_valid_arguments_fill_defaults():
    assert refund.validate({"order_id": "A", "amount_cents": 5}) == {
        "order_id": "A",
        "amount_cents": 5,
        "method": "card",
        "note": None,
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"order_id": "A"}, "invalid arguments for refund: amount_cents: field required"),
        (
            {"order_id": "A", "amount_cents": "lots"},
            "amount_cents: input should be a valid integer",
        ),
        (
            {"order_id": "A", "amount_cents": 1, "method": "cash"},
            "method: input should be 'card' or 'credit'",
        ),
        ({"order_id": "A", "amount_cents": 1, "reason": "x"}, "reason: unknown argument"),
        ([1, 2], "arguments for refund must be an object"),
    ],
)
def test_invalid_arguments(args, message):
    with pytest.raises(InvalidArguments) as caught:
        refund.validate(args)
    assert message in str(caught.value)


def test_a_tool_is_still_a_function():
    assert refund(None, "A", 1) == {"order_id": "A"}


@tool
def lookup(world, order_id: str, fields: list[str] | None = None) -> dict:
    """Look up an order.

    Args:
        order_id: The order's id, as printed on the receipt
            (for example D-1001).
        fields: Which fields to return; all when omitted.

    Returns the order.
    """
    return {}


def test_the_whole_docstring_is_the_description_and_args_describe_the_parameters():
    described = lookup.describe()
    assert described["description"] == "Look up an order.\n\nReturns the order."
    properties = described["parameters"]["properties"]
    assert properties["order_id"]["description"] == (
        "The order's id, as printed on the receipt (for example D-1001)."
    )
    assert properties["fields"]["description"] == "Which fields to return; all when omitted."
