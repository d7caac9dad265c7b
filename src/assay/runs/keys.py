"""API keys with scopes: made here, kept in the records store only as hashes.

- `evaluate`: create benchmark runs of published, non-withdrawn tasks, drive them, read their
  results (scored-mode rules; never a holdout task's details).
- `build`: also read tasks, failed episodes of train and dev, validation and build records.
- `admin`: everything, including full evidence of holdout runs and key management.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import UTC, datetime, timedelta
from typing import Literal, get_args

from assay.errors import UsageError
from assay.runs.store.keys import KeyRecord

Scope = Literal["evaluate", "build", "admin"]
SCOPES: tuple[Scope, ...] = get_args(Scope)
KEY_PREFIX = "ask_"
DURATION = re.compile(r"^(\d+)([smhd])$")
UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def expiry(text: str | None, field: str = "--expires") -> str | None:
    """An expiry from `30d`, `12h`, `15m`, `90s` or an ISO-8601 time; UsageError otherwise."""
    if text is None:
        return None
    found = DURATION.match(text.strip())
    if found:
        amount, unit = int(found.group(1)), UNITS[found.group(2)]
        return stamp(datetime.now(UTC) + timedelta(**{unit: amount}))
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"{field}: {text!r} is not a duration (30d, 12h, 15m, 90s) or an ISO-8601 time"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if moment <= datetime.now(UTC):
        raise UsageError(f"{field}: {text!r} is in the past")
    return stamp(moment)


def create_key(
    store: object, scope: str, name: str = "", expires: str | None = None
) -> tuple[str, KeyRecord]:
    """A new key of `scope`: its secret (shown once, never stored) and its record."""
    if scope not in SCOPES:
        raise UsageError(f"--scope: {scope!r} is not one of {', '.join(SCOPES)}")
    secret = KEY_PREFIX + secrets.token_urlsafe(32)
    key_id = "key_" + secrets.token_hex(6)
    record = store.create_key(key_id, name or key_id, scope, digest(secret), expiry(expires))  # type: ignore[attr-defined]
    return secret, record


def now_stamp() -> str:
    return stamp(datetime.now(UTC))
