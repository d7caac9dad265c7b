"""Model agents', model customers' and judges' options from the command line, into the
environment so that worker processes read them too."""

from __future__ import annotations

import json
import os

from assay.errors import UsageError


def set_model_options(
    base_url: str | None,
    temperature: float | None,
    max_tokens: int | None,
    seed: int | None,
    model_args: list[str],
    retries: int,
    max_connections: int | None = None,
    timeout_s: float = 60.0,
) -> None:
    """Model agents' options, in the environment so that worker processes read them too."""
    from assay.provider import OPTIONS_ENV

    extra = {}
    for item in model_args:
        key, found, value = item.partition("=")
        if not found or not key:
            raise UsageError(f"--model-arg: {item!r} is not KEY=VALUE")
        try:
            extra[key] = json.loads(value)
        except ValueError:
            extra[key] = value
    chosen = {
        "base_url": base_url,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "seed": seed,
        "retries": retries,
        "max_connections": max_connections,
        "timeout_s": timeout_s,
        "extra": extra,
    }
    os.environ[OPTIONS_ENV] = json.dumps({k: v for k, v in chosen.items() if v is not None})
