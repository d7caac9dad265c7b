"""R4 date search (search.html §3.1.1.4.4 and the prefixes of §3.1.1.4.1): a search value and a
resource value are each a range of time set by their precision (`2013-01` is all of January), a
Period is its start to its end; each prefix compares the two ranges."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

PREFIXES = ("eq", "ne", "gt", "lt", "ge", "le", "sa", "eb", "ap")
DATE = re.compile(
    r"^(?P<year>\d{4})(?:-(?P<month>\d{2})(?:-(?P<day>\d{2})"
    r"(?:T(?P<hour>\d{2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?P<fraction>\.\d+)?)?"
    r"(?P<zone>Z|[+-]\d{2}:\d{2})?)?)?)?$"
)
EARLIEST = datetime.min.replace(tzinfo=UTC)
LATEST = datetime.max.replace(tzinfo=UTC)
Range = tuple[datetime, datetime]  # [start, end): the end is the first instant after the range


def date_range(text: str) -> Range | None:
    """The range a date, dateTime or instant covers at its precision (UTC where no zone is given),
    or None when `text` is not one."""
    found = DATE.match(text)
    if found is None:
        return None
    part = {key: value for key, value in found.groupdict().items() if value is not None}
    try:
        zone = _zone(part.get("zone"))
        start = datetime(
            int(part["year"]),
            int(part.get("month", 1)),
            int(part.get("day", 1)),
            int(part.get("hour", 0)),
            int(part.get("minute", 0)),
            int(part.get("second", 0)),
            int(float(part.get("fraction", "0")) * 1_000_000),
            tzinfo=zone,
        )
    except ValueError:  # 2026-02-30, 25:00
        return None
    return start.astimezone(UTC), _after(start, part).astimezone(UTC)


def _zone(text: str | None) -> Any:
    if text is None or text == "Z":
        return UTC
    sign = -1 if text[0] == "-" else 1
    hours, minutes = int(text[1:3]), int(text[4:6])
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


def _after(start: datetime, part: dict[str, str]) -> datetime:
    """The first instant after the unit of the value's precision."""
    if "fraction" in part:
        return start + timedelta(seconds=10 ** -(len(part["fraction"]) - 1))
    if "second" in part:
        return start + timedelta(seconds=1)
    if "minute" in part:
        return start + timedelta(minutes=1)
    if "day" in part:
        return start + timedelta(days=1)
    if "month" in part:
        year, month = divmod(start.month, 12)
        return start.replace(year=start.year + year, month=month + 1)
    return start.replace(year=start.year + 1)


def value_ranges(item: Any) -> list[Range]:
    """The ranges of a resource's date, dateTime, instant, Period or Timing value."""
    if isinstance(item, str):
        found = date_range(item)
        return [found] if found else []
    if not isinstance(item, dict):
        return []
    if "start" in item or "end" in item:  # a Period: an absent end is ongoing
        start = date_range(item["start"]) if isinstance(item.get("start"), str) else None
        end = date_range(item["end"]) if isinstance(item.get("end"), str) else None
        return [(start[0] if start else EARLIEST, end[1] if end else LATEST)]
    events = [found for event in item.get("event", []) for found in value_ranges(event)]
    bounds = item.get("repeat", {}).get("boundsPeriod")
    return events + (value_ranges(bounds) if bounds else [])


def date_test(want: str, read_error: Callable[[str], Exception]) -> Callable[[Any], bool]:
    """A test of one resource value against `[prefix]date`; an unreadable date raises
    `read_error(message)`."""
    prefix = want[:2] if want[:2] in PREFIXES else "eq"
    text = want[2:] if want[:2] in PREFIXES else want
    wanted = date_range(text)
    if wanted is None:
        raise read_error(f"{want!r} is not a date (yyyy, yyyy-mm, yyyy-mm-dd or a dateTime)")
    if prefix == "ap":  # R4 leaves the margin to the server: a tenth of the range on each side
        margin = (wanted[1] - wanted[0]) / 10
        wanted = (wanted[0] - margin, wanted[1] + margin)
    compare = COMPARE[prefix]
    return lambda item: any(compare(wanted, found) for found in value_ranges(item))


def _contains(search: Range, found: Range) -> bool:
    return search[0] <= found[0] and found[1] <= search[1]


COMPARE: dict[str, Callable[[Range, Range], bool]] = {
    "eq": _contains,
    "ne": lambda search, found: not _contains(search, found),
    "gt": lambda search, found: found[1] > search[1],
    "lt": lambda search, found: found[0] < search[0],
    "ge": lambda search, found: found[1] > search[1] or _contains(search, found),
    "le": lambda search, found: found[0] < search[0] or _contains(search, found),
    "sa": lambda search, found: found[0] >= search[1],
    "eb": lambda search, found: found[1] <= search[0],
    "ap": lambda search, found: found[0] < search[1] and search[0] < found[1],
}
