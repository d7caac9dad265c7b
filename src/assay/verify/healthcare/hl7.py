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
from assay.verify.healthcare.items import (
    ItemResult,
    compare_item,
    item_details,
    item_score,
    none_asked_run,
)
from assay.world.guard import QueryFailed, QueryLimit, QueryRefused, QueryTimeout
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
        return none_asked_run(check, len(chosen), "accepted outbound HL7 message", evidence)
    if not chosen:
        kinds = ", ".join(str(row["message_type"]) for row in sent) or "none"
        wanted = json.dumps(check.correlate_by, default=str)
        details = (
            f"no outbound HL7 message matched correlate_by {wanted} ({len(sent)} outbound: {kinds})"
        )
        evidence.update(message_id=None, control_id=None, field_results=[])
        return CheckRun.of(check, passed=False, score=0.0, details=details, evidence=evidence)
    scored = [(row, _items(check, row, len(chosen))) for row in chosen]
    best, items = max(scored, key=lambda pair: (sum(i.passed for i in pair[1]), pair[0]["id"]))
    score, passed = item_score(items)
    evidence.update(
        message_id=best["id"],
        control_id=best["control_id"],
        field_results=[item.as_json() for item in items],
    )
    subject = f"{best['message_type']} {best['control_id']}"
    details = item_details(subject, items)
    return CheckRun.of(check, passed=passed, score=score, details=details, evidence=evidence)


def compile_hl7_check(check: Hl7StructuralCheck) -> list[tuple[str, str]]:
    """Every path in correlate_by and fields is an HL7 path (shorthands aside)."""
    found = []
    named = [(f"correlate_by.{key}", key) for key in check.correlate_by if key not in SHORTHANDS]
    named += [(f"fields[{index}].path", item.path) for index, item in enumerate(check.fields)]
    for where, path in named:
        try:
            parse_path(path)
        except BadPath as error:
            found.append((where, str(error)))
    return found


def _messages(context: VerifyContext, check: Hl7StructuralCheck) -> list[dict[str, Any]]:
    try:
        names, rows = context.final.fetch(ROWS, {})
    except (QueryRefused, QueryFailed, QueryTimeout, QueryLimit) as error:
        raise CheckError(
            f"check {check.name!r}: the HL7 messages could not be read: {error}"
        ) from None
    found = [dict(zip(names, row, strict=True)) for row in rows]
    if check.service is not None:
        found = [row for row in found if row["service"] == check.service]
    return found


def _matches(row: dict[str, Any], wanted: dict[str, Any]) -> bool:
    for key, value in wanted.items():
        if key in SHORTHANDS:  # message_type = "ADT^A04", trigger_event = "A04"
            actual = row[key]
        else:
            try:
                actual = read(row["raw"], key)
            except BadPath as error:
                raise CheckError(f"correlate_by {key!r}: {error}") from None
        if not compare_item(actual, "eq", value):
            return False
    return True


def _items(check: Hl7StructuralCheck, row: dict[str, Any], matched: int) -> list[ItemResult]:
    items = []
    for item in check.fields:
        try:
            actual = read(row["raw"], item.path)
        except BadPath as error:
            raise CheckError(f"check {check.name!r}: {error}") from None
        passed = compare_item(actual, item.op, item.expected)
        items.append(ItemResult(item.path, item.expected, actual, passed))
    if check.count is not None:
        items.append(ItemResult("$count", check.count, matched, matched == check.count))
    if check.valid is not None:
        valid = structure_problem(row["raw"]) is None
        items.append(ItemResult("$valid", check.valid, valid, valid == check.valid))
    return items
