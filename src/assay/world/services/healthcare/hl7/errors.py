"""What went wrong with a received HL7 v2 message, as an ERR segment says it: an HL7 table 0357
condition code, a table 0516 severity and, where known, the error location (ERL)."""

from __future__ import annotations

from dataclasses import dataclass

SEGMENT_SEQUENCE = 100
REQUIRED_FIELD_MISSING = 101
DATA_TYPE_ERROR = 102
TABLE_VALUE_NOT_FOUND = 103
UNSUPPORTED_MESSAGE_TYPE = 200
UNSUPPORTED_EVENT_CODE = 201
UNSUPPORTED_PROCESSING_ID = 202
UNSUPPORTED_VERSION_ID = 203
APPLICATION_INTERNAL_ERROR = 207

CONDITION_NAMES = {  # HL7 v2.5.1 table 0357, message error condition codes
    SEGMENT_SEQUENCE: "Segment sequence error",
    REQUIRED_FIELD_MISSING: "Required field missing",
    DATA_TYPE_ERROR: "Data type error",
    TABLE_VALUE_NOT_FOUND: "Table value not found",
    UNSUPPORTED_MESSAGE_TYPE: "Unsupported message type",
    UNSUPPORTED_EVENT_CODE: "Unsupported event code",
    UNSUPPORTED_PROCESSING_ID: "Unsupported processing id",
    UNSUPPORTED_VERSION_ID: "Unsupported version id",
    APPLICATION_INTERNAL_ERROR: "Application internal error",
}


@dataclass(frozen=True)
class Hl7Error:
    """One ERR segment: `location` is ERR-2 as `(segment, sequence, field, component)` parts."""

    code: int
    text: str
    location: tuple[str, ...] = ()
    severity: str = "E"  # table 0516: E error, W warning, I information

    def segment(self, separators: tuple[str, str, str, str, str]) -> str:
        """The ERR segment in the message's own separators, the text at ERR-8 (user message)."""
        field, component = separators[0], separators[1]
        condition = component.join((str(self.code), CONDITION_NAMES[self.code], "HL70357"))
        location = component.join(self.location)
        text = escape_text(self.text, separators)
        return field.join(["ERR", "", location, condition, self.severity, "", "", "", text])


def field_error(code: int, text: str, segment: str, field: int, component: int = 0) -> Hl7Error:
    """An error at a field (or a component of its first repetition) of the first occurrence of a
    segment: ERL `MSH^1^10`, `MSH^1^9^1^2`."""
    where = (segment, "1", str(field)) + (("1", str(component)) if component else ())
    return Hl7Error(code, text, where)


def escape_text(text: str, separators: tuple[str, str, str, str, str]) -> str:
    """Free text inside a field, its separators escaped as HL7 escapes them (§2.7.4)."""
    field, component, repetition, escape, sub = separators
    names = {escape: "E", field: "F", component: "S", repetition: "R", sub: "T"}
    flat = text.replace("\r", " ").replace("\n", " ")
    names.pop(" ", None)  # a message that names fewer than four encoding characters
    return "".join(f"{escape}{names[c]}{escape}" if c in names else c for c in flat)
