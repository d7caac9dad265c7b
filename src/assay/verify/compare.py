"""The six comparisons; numbers compare as numbers whatever type the database returned."""

from __future__ import annotations

import operator
from collections.abc import Callable
from decimal import Decimal
from typing import Any

COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "gt": operator.gt,
    "ge": operator.ge,
    "lt": operator.lt,
    "le": operator.le,
}
SYMBOLS = {"eq": "=", "ne": "≠", "gt": ">", "ge": "≥", "lt": "<", "le": "≤"}
_NUMBERS = (int, float, Decimal)  # a tuple: `int | float | Decimal` is built again at each call


def as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, _NUMBERS):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def compare(actual: Any, op: str, expected: Any) -> bool:
    """`actual <op> expected`; a comparison that has no meaning (None, text with number) is false."""
    left, right = as_number(actual), as_number(expected)
    if left is None or right is None:
        left, right = actual, expected
    if op in ("eq", "ne"):
        return COMPARISONS[op](left, right)
    if left is None or right is None or type(left) is not type(right):
        return False
    return COMPARISONS[op](left, right)


def describe(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value) if isinstance(value, str) else str(value)
