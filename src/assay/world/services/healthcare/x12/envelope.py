"""The envelope of a received interchange checked as X12.5 and the 999 guide (005010X231A1) ask:
ISA/IEA errors are TA1 note codes (TA105), GS/GE errors AK9 codes (AK905), ST/SE errors IK5
codes (IK502)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from assay.world.services.healthcare.x12.paths import Interchange

QUALIFIERS = {"01", "14", "20", "27", "28", "29", "30", "33", "ZZ"}  # ISA05 / ISA07
TA1_NOTES = {
    "000": "no error",
    "001": "the interchange control numbers in ISA13 and IEA02 do not match",
    "005": "invalid interchange sender id qualifier (ISA05)",
    "007": "invalid interchange receiver id qualifier (ISA07)",
    "010": "invalid authorization information qualifier (ISA01)",
    "012": "invalid security information qualifier (ISA03)",
    "014": "invalid interchange date (ISA09)",
    "015": "invalid interchange time (ISA10)",
    "017": "invalid interchange control version (ISA12)",
    "018": "invalid interchange control number (ISA13)",
    "019": "invalid acknowledgment requested value (ISA14)",
    "020": "invalid usage indicator (ISA15)",
    "021": "the number of included functional groups (IEA01) is wrong",
    "024": "invalid interchange content: no functional group",
}


@dataclass(frozen=True)
class Received:
    """The ISA of a received interchange: what a TA1 quotes, whether one was asked for, and
    the first interchange-level error found (a TA105 code), if any."""

    control: str
    date: str
    time: str
    ta1_requested: bool
    error: str | None

    def quoted(self) -> dict[str, str]:
        return {"control": self.control, "date": self.date, "time": self.time}


@dataclass
class SetResult:
    """One ST..SE of a received group: its id, control number and IK502 codes."""

    code: str
    control: str
    errors: list[str] = field(default_factory=list)


@dataclass
class GroupResult:
    """One GS..GE: its GS01, GS06, GS08, its sets and its AK905 codes."""

    functional: str
    control: str
    version: str
    sets: list[SetResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    closed: bool = False
    declared: str = ""  # GE01

    @property
    def accepted(self) -> int:
        return 0 if self.errors else sum(not item.errors for item in self.sets)


def received(document: Interchange) -> Received:
    isa = document.segments[0] + [""] * 17
    control = isa[13].strip()
    return Received(control, isa[9], isa[10], isa[14] == "1", _isa_error(document, isa))


def _isa_error(document: Interchange, isa: list[str]) -> str | None:
    checks = [
        ("010", isa[1] in ("00", "03")),
        ("012", isa[3] in ("00", "01")),
        ("005", isa[5] in QUALIFIERS),
        ("007", isa[7] in QUALIFIERS),
        ("014", _is_time(isa[9], "%y%m%d")),
        ("015", _is_time(isa[10], "%H%M")),
        ("017", isa[12] == "00501"),
        ("018", re.fullmatch(r"\d{9}", isa[13]) is not None),
        ("019", isa[14] in ("0", "1")),
        ("020", isa[15] in ("P", "T")),
    ]
    for code, ok in checks:
        if not ok:
            return code
    iea = document.segments[-1] + ["", ""]
    groups = sum(seg[0] == "GS" for seg in document.segments)
    if iea[2].strip() != isa[13].strip():
        return "001"
    if iea[1].strip() != str(groups):
        return "021"
    return None if groups else "024"


def _is_time(value: str, shape: str) -> bool:
    try:
        datetime.strptime(value, shape)
    except ValueError:
        return False
    return True


def groups(document: Interchange) -> list[GroupResult]:
    """Every functional group with the count and control-number errors of it and its sets."""
    found: list[GroupResult] = []
    current: SetResult | None = None
    counted = 0
    for seg in document.segments[1:-1]:
        name, values = seg[0], seg + [""] * 9
        if name == "GS":
            _unclosed(found)
            found.append(GroupResult(values[1], values[6], values[8]))
        elif not found:
            continue
        elif name == "ST":
            current, counted = SetResult(values[1], values[2]), 0
            found[-1].sets.append(current)
        elif name == "GE":
            _close_group(found[-1], values, current)
            current = None
        if current is not None:
            counted += 1
            if name == "SE":
                _close_set(current, values, counted)
                current = None
    _unclosed(found)
    return found


def _unclosed(found: list[GroupResult]) -> None:
    if found and not found[-1].closed:
        found[-1].errors.append("3")  # functional group trailer missing
        found[-1].closed = True


def _close_set(item: SetResult, se: list[str], counted: int) -> None:
    if se[1] != str(counted):
        item.errors.append("4")  # number of included segments does not match actual count
    if se[2] != item.control:
        item.errors.append("3")  # control numbers in ST02 and SE02 do not match


def _close_group(group: GroupResult, ge: list[str], open_set: SetResult | None) -> None:
    group.closed, group.declared = True, ge[1]
    if open_set is not None:
        open_set.errors.append("2")  # transaction set trailer missing
    if ge[1] != str(len(group.sets)):
        group.errors.append("5")  # number of included transaction sets does not match
    if ge[2] != group.control:
        group.errors.append("4")  # GS06 and GE02 do not agree
