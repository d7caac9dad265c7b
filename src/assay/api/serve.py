"""Put the API together from the command line's choices: worlds, store, operator key, token expiry."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from fastapi import FastAPI

from assay.api.app import create_app
from assay.api.limits import DEFAULT_MAX_BODY_BYTES, MAX_BODY_ENVIRONMENT
from assay.errors import UsageError
from assay.runs.store import open_store
from assay.served.auth import DAY_S, new_key
from assay.served.catalog import Catalog
from assay.served.context import Context

KEY_ENVIRONMENT = "ASSAY_API_KEY"


def open_api(
    worlds: Sequence[str | Path],
    *,
    store: str | None = None,
    operator_key: str | None = None,
    token_ttl_s: float = DAY_S,
    max_body_bytes: int | None = None,
    mllp_port: int | None = None,
    sftp_port: int | None = None,
    sftp_host_key: Path | None = None,
) -> tuple[FastAPI, str]:
    """The app and its operator key (from the argument, ASSAY_API_KEY, or made up now).

    max_body_bytes: the largest request body (default ASSAY_MAX_BODY_BYTES, else 1 MiB).
    mllp_port: serve HL7 over MLLP, each benchmark run on its own port from this one up (0: any
    free port).
    sftp_port: serve the file trees over SFTP on this port (0: any free port), with the host key
    kept at `sftp_host_key` (default .assay/sftp_host_key; made on first use).
    """
    key = operator_key or os.environ.get(KEY_ENVIRONMENT) or new_key()
    if not (key.isascii() and key.isprintable()):  # it travels in a header: ASCII or no match
        where = "operator_key" if operator_key else KEY_ENVIRONMENT
        raise UsageError(f"{where}: the operator key must be printable ASCII")
    limit = _body_limit(max_body_bytes)
    records = open_store(store)
    context = Context.open(Catalog(worlds, records), records, key, token_ttl_s)
    if mllp_port is not None:
        from assay.api.mllp import MllpListeners  # python-hl7 comes with assay[health]

        context.mllp = MllpListeners(context, mllp_port)
    if sftp_port is not None:
        try:
            from assay.api.sftp import SftpGateway
        except ImportError:
            raise UsageError("SFTP needs asyncssh: pip install 'assay[sftp]'") from None
        host_key = sftp_host_key or Path(".assay") / "sftp_host_key"
        context.sftp = SftpGateway(context, sftp_port, host_key)
    return create_app(context, limit), key


def _body_limit(given: int | None) -> int:
    if given is not None:
        where, value = "max_body_bytes", str(given)
    else:
        where, value = MAX_BODY_ENVIRONMENT, os.environ.get(MAX_BODY_ENVIRONMENT, "")
        if not value:
            return DEFAULT_MAX_BODY_BYTES
    try:
        limit = int(value)
    except ValueError:
        limit = 0
    if limit < 1:
        raise UsageError(f"{where}: the body limit must be a whole number of bytes, 1 or more")
    return limit
