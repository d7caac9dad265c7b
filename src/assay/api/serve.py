"""Put the API together from the command line's choices: worlds, store, operator key, token expiry."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from fastapi import FastAPI

from assay.api.app import create_app
from assay.api.auth import new_key
from assay.api.catalog import Catalog
from assay.api.context import Context
from assay.errors import UsageError
from assay.runs.store import open_store

KEY_ENVIRONMENT = "ASSAY_API_KEY"
DAY_S = 24 * 3600.0


def open_api(
    worlds: Sequence[str | Path],
    *,
    store: str | None = None,
    operator_key: str | None = None,
    token_ttl_s: float = DAY_S,
) -> tuple[FastAPI, str]:
    """The app and its operator key (from the argument, ASSAY_API_KEY, or made up now)."""
    key = operator_key or os.environ.get(KEY_ENVIRONMENT) or new_key()
    if not (key.isascii() and key.isprintable()):  # it travels in a header: ASCII or no match
        where = "operator_key" if operator_key else KEY_ENVIRONMENT
        raise UsageError(f"{where}: the operator key must be printable ASCII")
    context = Context.open(Catalog(worlds), open_store(store), key, token_ttl_s)
    return create_app(context), key
