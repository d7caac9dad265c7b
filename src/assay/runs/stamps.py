"""Times as the store keeps them: ISO-8601 UTC text, which sorts as time does."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


def now(ago_s: float = 0.0) -> str:
    """This moment, or the one `ago_s` seconds before it."""
    moment = datetime.now(UTC) - timedelta(seconds=ago_s)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
