"""Times as the store keeps them: ISO-8601 UTC text, which sorts as time does."""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
