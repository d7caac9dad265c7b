"""What the interface engine answers a sent HL7 v2 message: AA accepted, AE unparsable, structure
invalid (hl7apy, when asked) or a type it does not accept, AR without a control id (MSH-10)."""

from __future__ import annotations

from dataclasses import dataclass, field

import hl7

from assay.world.services.healthcare.hl7.paths import normalise, read

DEFAULT_ACCEPT = (
    "ADT^A01",
    "ADT^A03",
    "ADT^A04",
    "ADT^A08",
    "ORM^O01",
    "ORU^R01",
    "SIU^S12",
    "SIU^S15",
)


@dataclass
class Verdict:
    ack_code: str
    control_id: str | None = None
    message_type: str | None = None
    trigger_event: str | None = None
    errors: list[str] = field(default_factory=list)


def judge(raw: str, accept: tuple[str, ...], strict: bool) -> Verdict:
    """The ACK code a message earns, with the reasons for anything but AA."""
    text = normalise(raw)
    if not text.startswith("MSH"):
        return Verdict("AE", errors=["not an HL7 v2 message: it must start with an MSH segment"])
    try:
        hl7.parse(text)
    except Exception as error:  # python-hl7 raises several kinds on malformed text
        return Verdict("AE", errors=[f"unparsable: {error}"])
    verdict = Verdict(
        "AA",
        control_id=read(text, "MSH.10") or None,
        message_type="^".join(filter(None, (read(text, "MSH.9.1"), read(text, "MSH.9.2")))),
        trigger_event=read(text, "MSH.9.2") or None,
    )
    if not verdict.control_id:
        verdict.ack_code = "AR"
        verdict.errors.append("MSH-10 (message control id) is missing")
    elif verdict.message_type not in accept:
        verdict.ack_code = "AE"
        verdict.errors.append(
            f"message type {verdict.message_type or '(none)'} is not accepted here "
            f"(accepted: {', '.join(accept)})"
        )
    elif strict:
        problem = structure_problem(text)
        if problem:
            verdict.ack_code = "AE"
            verdict.errors.append(problem)
    return verdict


def structure_problem(text: str) -> str | None:
    """hl7apy's strict structure validation of the message; None when it is valid."""
    from hl7apy.consts import VALIDATION_LEVEL
    from hl7apy.parser import parse_message

    try:
        parse_message(text, validation_level=VALIDATION_LEVEL.STRICT).validate()
    except Exception as error:  # hl7apy raises its own errors and ValueErrors alike
        return f"structure invalid: {error}"
    return None


def ack_message(raw: str, verdict: Verdict, stamp: str, control_id: str, version: str) -> str:
    """The ACK as pipe-delimited text: MSH, MSA, and an ERR segment per error."""
    text = normalise(raw)
    try:
        message = hl7.parse(text) if verdict.message_type is not None else None
    except Exception:
        message = None
    if message is None:  # nothing to answer from: a bare ACK that still says what went wrong
        lines = [
            f"MSH|^~\\&|ASSAY||||{stamp}||ACK|{control_id}|P|{version}",
            f"MSA|{verdict.ack_code}|",
        ]
    else:
        ack = message.create_ack(verdict.ack_code, message_id=control_id)
        ack.segment("MSH").assign_field(stamp, 7)  # the world's clock, never the machine's
        if not str(ack.segment("MSH")(12)):
            ack.segment("MSH").assign_field(version, 12)
        lines = [line for line in str(ack).split("\r") if line]
    lines += [f"ERR|||207|E||||{_escaped(error)}" for error in verdict.errors]
    return "\r".join(lines)


def _escaped(text: str) -> str:
    """Free text inside a field: the separators escaped as HL7 escapes them."""
    table = {"\\": "\\E\\", "|": "\\F\\", "^": "\\S\\", "~": "\\R\\", "&": "\\T\\"}
    return "".join(table.get(char, char) for char in text.replace("\r", " ").replace("\n", " "))
