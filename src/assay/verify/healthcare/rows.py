"""Reading a service's rows in the final state for a typed check: a refused or failed read is the
check's error, naming what could not be read."""

from __future__ import annotations

from typing import Any

from assay.errors import CheckError
from assay.formats.checks import CheckBase
from assay.verify.context import VerifyContext
from assay.world.guard import QueryFailed, QueryLimit, QueryRefused, QueryTimeout


def fetch_rows(
    context: VerifyContext,
    check: CheckBase,
    sql: str,
    what: str,
    params: dict[str, Any] | None = None,
    service: str | None = None,
) -> list[dict[str, Any]]:
    """The rows `sql` returns, as dicts; those of `service` only when one is named.

    what: the rows in words (`the HL7 messages`), for the error when they cannot be read."""
    try:
        names, rows = context.final.fetch(sql, params or {})
    except (QueryRefused, QueryFailed, QueryTimeout, QueryLimit) as error:
        raise CheckError(f"check {check.name!r}: {what} could not be read: {error}") from None
    found = [dict(zip(names, row, strict=True)) for row in rows]
    if service is not None:
        found = [row for row in found if row["service"] == service]
    return found
