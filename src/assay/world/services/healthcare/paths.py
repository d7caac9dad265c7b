"""Dotted paths into JSON values (`diagnosis_codes.0`, `plan.name`), for portal rows and checks."""

from __future__ import annotations

from typing import Any

MISSING = None


def read_path(value: Any, path: str) -> Any:
    """The value at `path`, or None when any step is missing."""
    for step in path.split("."):
        if isinstance(value, dict):
            value = value.get(step)
        elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        else:
            return MISSING
    return value
