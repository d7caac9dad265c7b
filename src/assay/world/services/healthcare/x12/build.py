"""X12 5010 interchanges the clearinghouse answers with, from templates: control numbers from the
service's counters, dates from the world's clock. Segments are built element by element, so every
element sits at its guide position (NM1 is always NM101..NM109)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal


@dataclass(frozen=True)
class Envelope:
    sender: str
    receiver: str
    control: int
    now: datetime


def segment(*elements: str | None) -> str:
    """One segment from its id and elements in order; trailing empty elements are left off."""
    values = ["" if value is None else str(value) for value in elements]
    while len(values) > 1 and values[-1] == "":
        values.pop()
    return "*".join(values)


def nm1(
    entity: str, person: bool, last: str, first: str = "", qualifier: str = "", ident: str = ""
) -> str:
    """NM1: entity (NM101), person 1 / organisation 2 (NM102), last or organisation name (NM103),
    first name (NM104), id qualifier (NM108) and id (NM109); NM105..NM107 are left empty."""
    kind = "1" if person else "2"
    return segment("NM1", entity, kind, last.upper(), first.upper(), "", "", "", qualifier, ident)


def isa(envelope: Envelope, acknowledgment: bool = False) -> str:
    """The ISA segment (fixed width); ISA14 is 1 only where a TA1 is asked for."""
    date, time = envelope.now.strftime("%y%m%d"), envelope.now.strftime("%H%M")
    return (
        f"ISA*00*{'':10}*00*{'':10}*ZZ*{envelope.sender:<15}*ZZ*{envelope.receiver:<15}"
        f"*{date}*{time}*^*00501*{envelope.control:09d}*{int(acknowledgment)}*T*:"
    )


def interchange(envelope: Envelope, functional: str, version: str, body: list[str]) -> str:
    """ISA/GS/ST … SE/GE/IEA around `body` (the transaction set code, then the segments between
    ST and SE)."""
    time = envelope.now.strftime("%H%M")
    st_control = f"{envelope.control:04d}"
    set_code, segments = body[0], body[1:]
    whole = [
        isa(envelope),
        f"GS*{functional}*{envelope.sender}*{envelope.receiver}*{envelope.now:%Y%m%d}*{time}"
        f"*{envelope.control}*X*{version}",
        f"ST*{set_code}*{st_control}*{version}",
        *segments,
        f"SE*{len(segments) + 2}*{st_control}",
        f"GE*1*{envelope.control}",
        f"IEA*1*{envelope.control:09d}",
    ]
    return "~".join(whole) + "~"


def ta1_interchange(envelope: Envelope, received: dict[str, str], code: str) -> str:
    """An interchange holding one TA1 for the received ISA (its ISA13, ISA09, ISA10): accepted
    (TA104 A, TA105 000) or rejected (R and the X12.5 interchange note code)."""
    note = "A" if code == "000" else "R"
    ta1 = segment("TA1", received["control"], received["date"], received["time"], note, code)
    return "~".join([isa(envelope), ta1, f"IEA*0*{envelope.control:09d}"]) + "~"


def money(value: str) -> str:
    """Dollars as X12 writes them: `25`, `1500`, `12.5`."""
    amount = Decimal(value or "0").normalize()
    return format(amount, "f")
