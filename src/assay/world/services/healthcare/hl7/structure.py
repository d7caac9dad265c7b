"""hl7apy's strict validation of a message's structure, its findings as HL7 errors: a missing or
extra segment is a segment sequence error (100), a missing required field 101, a value of the
wrong data type 102, and a value outside its HL7 table 103 (a warning)."""

from __future__ import annotations

import os
import re
import tempfile

from assay.world.services.healthcare.hl7.errors import (
    DATA_TYPE_ERROR,
    REQUIRED_FIELD_MISSING,
    SEGMENT_SEQUENCE,
    TABLE_VALUE_NOT_FOUND,
    Hl7Error,
    field_error,
)

MISSING = re.compile(r"Missing required child (?P<parent>\w+)\.(?P<child>\w+)")
FIELD = re.compile(r"^(?P<segment>[A-Z][A-Z0-9]{2})_(?P<field>\d+)$")
NOT_IN_TABLE = re.compile(r"not in table \w+ in element (?P<parent>\w+)\.(?P<child>\w+)")
COMPONENT = re.compile(r"^[A-Z0-9]{2,3}_(?P<component>\d+)$")
LIMIT = re.compile(r"Cannot add <Segment (?P<segment>\w+)>")


def structure_errors(text: str) -> list[Hl7Error]:
    """Every problem hl7apy's strict validation finds: its first error, and table warnings."""
    from hl7apy.consts import VALIDATION_LEVEL
    from hl7apy.parser import parse_message

    fd, report = tempfile.mkstemp(prefix="assay-hl7-", suffix=".txt")
    os.close(fd)
    try:
        try:
            parse_message(text, validation_level=VALIDATION_LEVEL.STRICT).validate(
                report_file=report
            )
            errors = []
        except Exception as error:  # hl7apy raises its own errors and ValueErrors alike
            errors = [_as_error(f"structure invalid: {error}")]
        with open(report, encoding="utf-8") as lines:
            warnings = [_as_warning(line) for line in lines if line.startswith("Warning: ")]
    finally:
        os.unlink(report)
    return errors + [warning for warning in warnings if warning is not None]


def structure_problem(text: str) -> str | None:
    """The first structure error as one line; None when the structure is valid."""
    errors = [error for error in structure_errors(text) if error.severity == "E"]
    return errors[0].text if errors else None


def _as_error(message: str) -> Hl7Error:
    missing = MISSING.search(message)
    if missing:
        child = FIELD.match(missing["child"])
        if child and child["segment"] == missing["parent"]:
            where = child["segment"], int(child["field"])
            return field_error(REQUIRED_FIELD_MISSING, message, *where)
        if re.fullmatch(r"[A-Z][A-Z0-9]{2}", missing["child"]):
            return Hl7Error(SEGMENT_SEQUENCE, message, (missing["child"],))
        return Hl7Error(REQUIRED_FIELD_MISSING, message)
    limit = LIMIT.search(message)
    if limit:
        return Hl7Error(SEGMENT_SEQUENCE, message, (limit["segment"],))
    return Hl7Error(DATA_TYPE_ERROR, message)


def _as_warning(line: str) -> Hl7Error | None:
    message = "structure: " + line.removeprefix("Warning: ").strip()
    found = NOT_IN_TABLE.search(message)
    if found is None:
        return None
    return Hl7Error(TABLE_VALUE_NOT_FOUND, message, _location(found["parent"], found["child"]), "W")


def _location(parent: str, child: str) -> tuple[str, ...]:
    """ERR-2 for hl7apy's `PID.PID_8` (a field) or `OBR_4.CE_3` (a component of a field)."""
    field, component = FIELD.match(child), COMPONENT.match(child)
    if field and field["segment"] == parent:
        return parent, "1", field["field"]
    owner = FIELD.match(parent)
    if owner and component:
        return owner["segment"], "1", owner["field"], "1", component["component"]
    return ()
