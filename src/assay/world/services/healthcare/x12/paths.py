"""X12 paths (`ST.01`, `EB[1].01`, `EB[EB01=B].07`, `STC[1].01-1`, `$count(EB)`) read from a raw
interchange. Delimiters come from the ISA segment (element ISA[3], repetition ISA[82], component
ISA[104], segment ISA[105]); positions are 1-based as in the implementation guides."""

from __future__ import annotations

import re
from dataclasses import dataclass

PATH = re.compile(
    r"^(?P<segment>[A-Z][A-Z0-9]{1,2})(?:\[(?P<select>[^\]]+)\])?[.-](?P<element>\d{1,2})"
    r"(?:-(?P<component>\d{1,2}))?$"
)
COUNT = re.compile(r"^\$count\((?P<segment>[A-Z][A-Z0-9]{1,2})(?:\[(?P<select>[^\]]+)\])?\)$")
FILTER = re.compile(r"^(?P<segment>[A-Z][A-Z0-9]{1,2})(?P<element>\d{2})(?:-(?P<component>\d+))?=")


class BadX12(ValueError):
    pass


@dataclass(frozen=True)
class Interchange:
    segments: list[list[str]]
    component: str
    repetition: str


def parse(raw: str) -> Interchange:
    """The segments of an interchange split by its own delimiters; BadX12 says why it cannot be."""
    text = raw.strip()
    if not text.startswith("ISA") or len(text) < 106:
        raise BadX12("not an X12 interchange: it must start with a 106-character ISA segment")
    element, repetition, component, terminator = text[3], text[82], text[104], text[105]
    if len({element, component, terminator}) < 3 or terminator.isalnum():
        raise BadX12("the ISA segment's delimiters are not distinct separators")
    segments = [
        part.strip("\r\n ").split(element) for part in text.split(terminator) if part.strip("\r\n ")
    ]
    if segments[-1][0] != "IEA":
        raise BadX12("the interchange has no IEA segment (cut short?)")
    return Interchange(segments, component, repetition)


def check_path(path: str) -> None:
    """BadX12 unless `path` is an X12 path or `$count(SEG…)`."""
    found = COUNT.match(path) or PATH.match(path)
    if found is None:
        raise BadX12(
            f"{path!r} is not an X12 path like ST.01, EB[1].01, EB[EB01=B].07 or $count(EB)"
        )
    if found["select"] and not found["select"].isdigit():
        for condition in found["select"].split(","):
            if FILTER.match(condition.strip()) is None:
                raise BadX12(f"{path!r}: a filter reads like [EB01=B] or [EB01=C,EB06=23]")


def read(doc: Interchange, path: str) -> str | int | None:
    """The value at `path` (a count for `$count(…)`), or None when there is none."""
    check_path(path)
    counted = COUNT.match(path)
    if counted:
        return len(_select(doc, counted["segment"], counted["select"]))
    found = PATH.match(path)
    assert found is not None
    chosen = _select(doc, found["segment"], found["select"])
    if not chosen:
        return None
    return _element(doc, chosen[0], int(found["element"]), found["component"])


def _select(doc: Interchange, name: str, select: str | None) -> list[list[str]]:
    segments = [segment for segment in doc.segments if segment[0] == name]
    if select is None:
        return segments
    if select.isdigit():
        index = int(select)
        return [segments[index - 1]] if 0 < index <= len(segments) else []
    conditions = [condition.strip().split("=", 1) for condition in select.split(",")]
    return [
        segment
        for segment in segments
        if all(_filter_value(doc, segment, left) == right for left, right in conditions)
    ]


def _filter_value(doc: Interchange, segment: list[str], left: str) -> str | None:
    found = FILTER.match(left + "=")
    assert found is not None
    return _element(doc, segment, int(found["element"]), found["component"])


def _element(doc: Interchange, segment: list[str], index: int, component: str | None) -> str | None:
    if index >= len(segment):
        return None
    value = segment[index]
    if component is None:
        return value
    parts = value.split(doc.component)
    position = int(component)
    return parts[position - 1] if 0 < position <= len(parts) else None
