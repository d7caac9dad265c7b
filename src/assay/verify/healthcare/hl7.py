"""`hl7-structural` checks: an outbound HL7 v2 message the interface accepted, chosen by
`correlate_by`, has the expected values at HL7 paths (docs/contracts/healthcare.md §3); the best
message is scored."""

from __future__ import annotations

import json
from typing import Any

from assay.errors import CheckError
from assay.formats.checks import Hl7StructuralCheck
from assay.verify.check_run import CheckRun
from assay.verify.context import VerifyContext
from assay.verify.healthcare import items
from assay.verify.healthcare.rows import fetch_rows
from assay.world.services.healthcare.hl7.paths import BadPath, parse_path, read
from assay.world.services.healthcare.hl7.structure import structure_problem

ROWS = (
    "SELECT id, service, message_type, trigger_event, control_id, ack_code, turn, raw "
    "FROM sandbox_hl7_messages WHERE direction = 'outbound' ORDER BY id"
)
SHORTHANDS = {"message_type", "trigger_event"}


def run_hl7_check(check: Hl7StructuralCheck, context: VerifyContext) -> CheckRun:
    sent = _messages(context, check)
    accepted = [row for row in sent if row["ack_code"] == "AA"]
    chosen = [row for row in accepted if _matches(row, check.correlate_by)]
    evidence: dict[str, Any] = {"correlate_by": check.correlate_by, "matched": len(chosen)}
    if check.asks_none:
        return items.none_asked_run(check, len(chosen), "accepted outbound HL7 message", evidence)
    if not chosen:
        kinds = ", ".join(str(row["message_type"]) for row in sent) or "none"
        wanted = json.dumps(check.correlate_by, default=str)
        details = (
            f"no outbound HL7 message matched correlate_by {wanted} ({len(sent)} outbound: {kinds})"
        )
        return items.unmatched_run(
            check, details, {**evidence, "message_id": None, "control_id": None}
        )
    best, results = items.best_scored(chosen, lambda row: _items(check, row, len(chosen)), "id")
    evidence.update(message_id=best["id"], control_id=best["control_id"])
    return items.scored_run(
        check, f"{best['message_type']} {best['control_id']}", results, evidence
    )


def compile_hl7_check(check: Hl7StructuralCheck) -> list[tuple[str, str]]:
    """Every path in correlate_by and fields is an HL7 path (shorthands aside)."""
    return items.path_problems(check.correlate_by, check.fields, parse_path, BadPath, SHORTHANDS)


def _messages(context: VerifyContext, check: Hl7StructuralCheck) -> list[dict[str, Any]]:
    return fetch_rows(context, check, ROWS, "the HL7 messages", service=check.service)


def _matches(row: dict[str, Any], wanted: dict[str, Any]) -> bool:
    for key, value in wanted.items():
        if key in SHORTHANDS:  # message_type = "ADT^A04", trigger_event = "A04"
            actual = row[key]
        else:
            try:
                actual = read(row["raw"], key)
            except BadPath as error:
                raise CheckError(f"correlate_by {key!r}: {error}") from None
        if not items.compare_item(actual, "eq", value):
            return False
    return True


def _items(check: Hl7StructuralCheck, row: dict[str, Any], matched: int) -> list[items.ItemResult]:
    results = items.field_items(
        check, check.fields, lambda path: read(row["raw"], path), (BadPath,)
    )
    results += items.tally_items(check, matched)
    if check.valid is not None:
        valid = structure_problem(row["raw"]) is None
        results.append(items.ItemResult("$valid", check.valid, valid, valid == check.valid))
    return results
