"""`--model-arg KEY=VALUE`: one more request field of the run's model requests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from assay.errors import UsageError


def model_args(items: Sequence[str]) -> dict[str, Any]:
    """Each `KEY=VALUE` as a request field: VALUE as JSON, else as text."""
    extra: dict[str, Any] = {}
    for item in items:
        key, found, value = item.partition("=")
        if not found or not key:
            raise UsageError(f"--model-arg: {item!r} is not KEY=VALUE")
        try:
            extra[key] = json.loads(value)
        except ValueError:
            extra[key] = value
    return extra
