"""What the interface engine makes of a received HL7 v2 message (HL7 v2.5.1 §2.9): the header is
checked first (MSH-9 type and event, MSH-11 processing id, MSH-12 version) and a failure there
rejects the message (AR; CR in enhanced mode); then its content (MSH-10, and with `strict` hl7apy's
structure validation) may make it an error (AE; CE when it cannot even be committed)."""

from __future__ import annotations

from dataclasses import dataclass, field

import hl7

from assay.world.services.healthcare.hl7.errors import (
    APPLICATION_INTERNAL_ERROR,
    REQUIRED_FIELD_MISSING,
    SEGMENT_SEQUENCE,
    TABLE_VALUE_NOT_FOUND,
    UNSUPPORTED_EVENT_CODE,
    UNSUPPORTED_MESSAGE_TYPE,
    UNSUPPORTED_PROCESSING_ID,
    UNSUPPORTED_VERSION_ID,
    Hl7Error,
    field_error,
)
from assay.world.services.healthcare.hl7.paths import normalise, read
from assay.world.services.healthcare.hl7.structure import structure_errors

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
# the versions whose MSH-9 carries the message structure (MSG.3), so an ACK reads `ACK^A01^ACK`
SUPPORTED_VERSIONS = ("2.3.1", "2.4", "2.5", "2.5.1", "2.6", "2.7", "2.8", "2.8.1", "2.8.2")
PROCESSING_IDS = ("D", "P", "T")  # table 0103
ACK_CONDITIONS = ("AL", "NE", "ER", "SU")  # table 0155, MSH-15 and MSH-16


@dataclass
class Verdict:
    """`ack_code` the application's answer (AA, AE, AR), `commit_code` the accept answer of
    enhanced mode (CA, CE, CR); `accept_ack` and `application_ack` are MSH-15 and MSH-16."""

    ack_code: str = "AA"
    commit_code: str = "CA"
    control_id: str | None = None
    message_type: str | None = None
    trigger_event: str | None = None
    version: str | None = None
    processing_id: str | None = None
    accept_ack: str = ""
    application_ack: str = ""
    errors: list[Hl7Error] = field(default_factory=list)

    @property
    def enhanced(self) -> bool:
        """Enhanced acknowledgment mode: MSH-15 or MSH-16 is valued (§2.9.3)."""
        return bool(self.accept_ack or self.application_ack)

    @property
    def reasons(self) -> list[str]:
        return [error.text for error in self.errors]


def read_header(raw: str) -> Verdict:
    """The message's header as an accepting verdict; empty when it has no MSH segment."""
    text = normalise(raw)
    if not text.startswith("MSH"):
        return Verdict()
    conditions = [(read(text, path) or "").upper() for path in ("MSH.15", "MSH.16")]
    return Verdict(
        control_id=read(text, "MSH.10") or None,
        message_type="^".join(filter(None, (read(text, "MSH.9.1"), read(text, "MSH.9.2")))),
        trigger_event=read(text, "MSH.9.2") or None,
        version=read(text, "MSH.12.1") or None,
        processing_id=read(text, "MSH.11.1") or None,
        accept_ack=conditions[0] if conditions[0] in ACK_CONDITIONS else "",
        application_ack=conditions[1] if conditions[1] in ACK_CONDITIONS else "",
    )


def judge(raw: str, accept: tuple[str, ...], strict: bool) -> Verdict:
    """The verdict a message earns, with an HL7 error for anything but AA."""
    text = normalise(raw)
    if not text.startswith("MSH"):
        why = "not an HL7 v2 message: it must start with an MSH segment"
        return Verdict("AR", "CR", errors=[Hl7Error(SEGMENT_SEQUENCE, why, ("MSH",))])
    try:
        hl7.parse(text)
    except Exception as error:  # python-hl7 raises several kinds on malformed text
        why = f"unparsable: {error}"
        return Verdict("AR", "CR", errors=[Hl7Error(SEGMENT_SEQUENCE, why, ("MSH",))])
    verdict = read_header(text)
    rejections = _header_errors(text, verdict, accept)
    if rejections:
        verdict.ack_code, verdict.commit_code, verdict.errors = "AR", "CR", rejections
        return verdict
    if not verdict.control_id:
        why = "MSH-10 (message control id) is missing"
        verdict.errors.append(field_error(REQUIRED_FIELD_MISSING, why, "MSH", 10))
        verdict.commit_code = "CE"  # nothing to acknowledge it by: it cannot be committed
    verdict.errors += _condition_errors(text)
    if strict:  # what the header checks already said is not said twice
        known = {(error.code, error.location) for error in verdict.errors}
        verdict.errors += [e for e in structure_errors(text) if (e.code, e.location) not in known]
    if any(error.severity == "E" for error in verdict.errors):
        verdict.ack_code = "AE"
    return verdict


def refused(raw: str, why: str, code: int = APPLICATION_INTERNAL_ERROR) -> Verdict:
    """A message the interface could not take in at all, for a reason outside its content."""
    verdict = read_header(raw)
    verdict.ack_code, verdict.commit_code = "AR", "CE"
    verdict.errors = [Hl7Error(code, why)]
    return verdict


def _header_errors(text: str, verdict: Verdict, accept: tuple[str, ...]) -> list[Hl7Error]:
    """MSH-9, MSH-11 and MSH-12 checked before anything else (§2.9.2.1 a–c)."""
    errors: list[Hl7Error] = []
    kind, event = read(text, "MSH.9.1") or "", read(text, "MSH.9.2") or ""
    accepted = ", ".join(accept)
    if not kind or not event:
        why = "MSH-9 (message type) must name a message code and a trigger event, e.g. ADT^A04"
        errors.append(field_error(REQUIRED_FIELD_MISSING, why, "MSH", 9))
    elif kind not in {item.split("^")[0] for item in accept}:
        why = f"message type {kind} is not accepted here (accepted: {accepted})"
        errors.append(field_error(UNSUPPORTED_MESSAGE_TYPE, why, "MSH", 9, 1))
    elif f"{kind}^{event}" not in accept:
        why = f"message type {kind}^{event} is not accepted here (accepted: {accepted})"
        errors.append(field_error(UNSUPPORTED_EVENT_CODE, why, "MSH", 9, 2))
    if not verdict.processing_id:
        why = "MSH-11 (processing id) is missing"
        errors.append(field_error(REQUIRED_FIELD_MISSING, why, "MSH", 11))
    elif verdict.processing_id not in PROCESSING_IDS:
        why = f"processing id {verdict.processing_id} is not one of D, P, T (HL7 table 0103)"
        errors.append(field_error(UNSUPPORTED_PROCESSING_ID, why, "MSH", 11))
    if not verdict.version:
        why = "MSH-12 (version id) is missing"
        errors.append(field_error(REQUIRED_FIELD_MISSING, why, "MSH", 12))
    elif verdict.version not in SUPPORTED_VERSIONS:
        versions = ", ".join(SUPPORTED_VERSIONS)
        why = f"version {verdict.version} is not supported here (supported: {versions})"
        errors.append(field_error(UNSUPPORTED_VERSION_ID, why, "MSH", 12))
    return errors


def _condition_errors(text: str) -> list[Hl7Error]:
    """MSH-15 and MSH-16 hold table 0155 values (AL, NE, ER, SU) or nothing."""
    errors = []
    for number in (15, 16):
        value = (read(text, f"MSH.{number}") or "").upper()
        if value and value not in ACK_CONDITIONS:
            why = f"MSH-{number} {value} is not one of AL, NE, ER, SU (HL7 table 0155)"
            errors.append(field_error(TABLE_VALUE_NOT_FOUND, why, "MSH", number))
    return errors
