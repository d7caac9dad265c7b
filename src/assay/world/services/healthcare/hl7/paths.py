"""HL7 v2 paths (`PID.5.1` = `PID-5.1`, `OBX[2].5`, `PID.3[2].1`, `MSH.9`) read from a raw message.

Segments, fields, repetitions, components and subcomponents are split by the message's own
encoding characters (MSH-1, MSH-2); every index is 1-based as in HL7. MSH-1 is the field separator
itself and MSH-2 the encoding characters, so MSH field numbers line up with the standard's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PATH = re.compile(
    r"^(?P<segment>[A-Z][A-Z0-9]{2})(?:\[(?P<occurrence>\d+)\])?[.-](?P<field>\d+)"
    r"(?:\[(?P<repetition>\d+)\])?(?:[.-](?P<component>\d+)(?:[.-](?P<sub>\d+))?)?$"
)


@dataclass(frozen=True)
class Hl7Path:
    segment: str
    occurrence: int
    field: int
    repetition: int | None
    component: int | None
    sub: int | None


class BadPath(ValueError):
    pass


def parse_path(text: str) -> Hl7Path:
    """The path's parts; BadPath says what a path looks like when `text` is not one."""
    found = PATH.match(text.strip())
    if found is None:
        raise BadPath(f"{text!r} is not an HL7 path like PID.5.1, PID-5.1, OBX[2].5 or PID.3[2].1")
    numbers = {
        name: int(found[name]) if found[name] else None
        for name in ("occurrence", "field", "repetition", "component", "sub")
    }
    if any(value == 0 for value in numbers.values()):
        raise BadPath(f"{text!r}: HL7 positions start at 1")
    return Hl7Path(
        found["segment"],
        numbers["occurrence"] or 1,
        numbers["field"] or 0,
        numbers["repetition"],
        numbers["component"],
        numbers["sub"],
    )


def normalise(raw: str) -> str:
    """Segments separated by `\\r` whatever the sender used (`\\n`, `\\r\\n`), no blank ones."""
    lines = re.split(r"\r\n|\r|\n", raw.strip())
    return "\r".join(line for line in lines if line.strip())


def segments(raw: str) -> list[str]:
    return [line for line in normalise(raw).split("\r") if line]


def encoding(raw: str) -> tuple[str, str, str, str, str]:
    """(field, component, repetition, escape, subcomponent) separators from MSH."""
    text = normalise(raw)
    if not text.startswith("MSH") or len(text) < 8:
        return "|", "^", "~", "\\", "&"
    field = text[3]
    chars = text[4:].split(field, 1)[0].ljust(4, " ")
    return field, chars[0], chars[1], chars[2], chars[3]


def read(raw: str, path: str | Hl7Path) -> str | None:
    """The value at `path` in the message, or None when the message has no such part."""
    where = parse_path(path) if isinstance(path, str) else path
    field_sep, component_sep, repetition_sep, _, sub_sep = encoding(raw)
    found = [line for line in segments(raw) if line.split(field_sep, 1)[0] == where.segment]
    if len(found) < where.occurrence:
        return None
    fields = found[where.occurrence - 1].split(field_sep)
    if where.segment == "MSH":  # MSH-1 is the separator itself: shift so MSH-2 is fields[1]
        fields = ["MSH", field_sep, *fields[1:]]
        if where.field <= 2:
            return fields[where.field] if where.component is None else None
    if where.field >= len(fields):
        return None
    value = fields[where.field]
    repetitions = value.split(repetition_sep)
    if where.repetition is not None:
        if where.repetition > len(repetitions):
            return None
        value = repetitions[where.repetition - 1]
    elif where.component is not None:
        value = repetitions[0]
    for index, separator in ((where.component, component_sep), (where.sub, sub_sep)):
        if index is None:
            break
        parts = value.split(separator)
        if index > len(parts):
            return None
        value = parts[index - 1]
    return value
