"""The ACKs the interface engine answers a message with (HL7 v2.5.1 §2.9): one application ACK
in original mode; in enhanced mode a commit ACK as MSH-15 asks and an application ACK as MSH-16
asks (AL always, NE never, ER only on an error, SU only on success)."""

from __future__ import annotations

from assay.world.services.healthcare.hl7.paths import encoding, normalise, read
from assay.world.services.healthcare.hl7.verdicts import PROCESSING_IDS, SUPPORTED_VERSIONS, Verdict

HL7_NULL = '""'  # §2.5.3: a field present but null


def answer_codes(verdict: Verdict) -> list[str]:
    """The MSA-1 codes of the ACKs to send, in order (none when the sender asked for none)."""
    if not verdict.enhanced:
        return [verdict.ack_code]
    committed = verdict.commit_code == "CA"
    codes = [verdict.commit_code] if _wanted(verdict.accept_ack, committed) else []
    # a message not committed is never processed: no application ACK follows it (§2.9.3)
    if committed and _wanted(verdict.application_ack, verdict.ack_code == "AA"):
        codes.append(verdict.ack_code)
    return codes


def ack_message(
    raw: str, verdict: Verdict, code: str, stamp: str, control_id: str, version: str
) -> str:
    """One ACK as pipe-delimited text: MSH, MSA, and an ERR segment per error.

    The ACK swaps the sender (MSH-3/4) and receiver (MSH-5/6), names the acknowledged event in
    MSH-9 (`ACK^A01^ACK`), echoes the processing id and version where they are supported (else
    `P` and `version`), and puts the received MSH-10 in MSA-2 — HL7's null `""` when none could
    be read, since MSA-2 is required and §2.9 names no other value.
    """
    text = normalise(raw)
    separators = encoding(text)
    field, component = separators[0], separators[1]
    got = (lambda path: read(text, path) or "") if text.startswith("MSH") else (lambda _: "")
    header = [
        "MSH",
        "".join(separators[1:]).rstrip(),
        got("MSH.5"),
        got("MSH.6"),
        got("MSH.3"),
        got("MSH.4"),
        stamp,
        "",
        component.join(("ACK", verdict.trigger_event or "", "ACK")),
        control_id,
        verdict.processing_id if verdict.processing_id in PROCESSING_IDS else "P",
        verdict.version if verdict.version in SUPPORTED_VERSIONS else version,
    ]
    lines = [field.join(header), field.join(["MSA", code, verdict.control_id or HL7_NULL])]
    if code != "CA":  # a commit accept says only that the message is kept
        lines += [error.segment(separators) for error in verdict.errors]
    return "\r".join(lines)


def _wanted(condition: str, succeeded: bool) -> bool:
    """Whether an ACK is sent under a table 0155 condition; an empty one in enhanced mode is NE."""
    return (
        condition == "AL"
        or (condition == "ER" and not succeeded)
        or (condition == "SU" and succeeded)
    )
