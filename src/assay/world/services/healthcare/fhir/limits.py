"""How deep a FHIR body may nest: past it a request is refused before any parser recurses."""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 64  # R4 resources nest a few levels deep, contained ones and extensions a few more


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether lists and objects in `value` nest past `limit` (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
