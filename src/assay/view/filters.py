"""The runs list's filters, read from the query string: one clear message for a bad one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from assay.errors import UsageError

DEFAULT_LIMIT = 50
MOST = 500


@dataclass(frozen=True)
class RunFilters:
    """World and agent match exactly; `since` and `until` are days, both included."""

    world: str = ""
    agent: str = ""
    since: str = ""
    until: str = ""
    limit: int = DEFAULT_LIMIT

    def query(self) -> dict[str, str | int | None]:
        """The store's arguments: `until` day D becomes "before D + 1"."""
        after = _day("until", self.until)
        return {
            "world": self.world or None,
            "agent": self.agent or None,
            "since": _day("since", self.since) and self.since,
            "before": after and (after + timedelta(days=1)).isoformat(),
            "limit": self.limit,
        }


def run_filters(
    world: str | None, agent: str | None, since: str | None, until: str | None, limit: str | None
) -> RunFilters:
    """The filters as given, checked; UsageError naming the parameter otherwise."""
    filters = RunFilters(
        world=(world or "").strip(),
        agent=(agent or "").strip(),
        since=(since or "").strip(),
        until=(until or "").strip(),
        limit=_limit(limit),
    )
    filters.query()  # a bad day is refused now
    return filters


def _day(name: str, text: str) -> date | None:
    if not text:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"{name}: {text!r} is not a day (YYYY-MM-DD)") from None


def _limit(text: str | None) -> int:
    if not text:
        return DEFAULT_LIMIT
    if not text.isdigit() or not 1 <= int(text) <= MOST:
        raise UsageError(f"limit: {text!r} is not a whole number from 1 to {MOST}")
    return int(text)
