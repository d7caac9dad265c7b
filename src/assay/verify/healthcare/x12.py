"""`x12-response` checks: a response of the clearinghouse of one transaction set (271, 277, 999),
whose pair (request or response) matches `correlate_by`, has the expected values at X12 paths
(docs/contracts/healthcare.md §7); the best response is scored."""

from __future__ import annotations

import json
from typing import Any

from assay.errors import CheckError
from assay.formats.checks import X12ResponseCheck
from assay.verify.check_run import CheckRun
from assay.verify.context import VerifyContext
from assay.verify.healthcare import items
from assay.verify.healthcare.rows import fetch_rows
from assay.world.services.healthcare.x12.paths import BadX12, check_path, parse, read

ROWS = (
    "SELECT id, service, transaction_set, direction, control_number, pair_id, raw "
    "FROM sandbox_x12_records ORDER BY id"
)


def run_x12_check(check: X12ResponseCheck, context: VerifyContext) -> CheckRun:
    records = _records(context, check)
    requests = {row["id"]: row for row in records if row["direction"] == "request"}
    answers = [
        row
        for row in records
        if row["direction"] == "response" and row["transaction_set"] == check.transaction_set
    ]
    chosen = [row for row in answers if _matches(row, requests.get(row["pair_id"]), check)]
    evidence: dict[str, Any] = {"transaction_set": check.transaction_set, "matched": len(chosen)}
    if check.asks_none:
        return items.none_asked_run(check, len(chosen), check.transaction_set, evidence)
    if not chosen:
        wanted = json.dumps(check.correlate_by, default=str)
        details = (
            f"no {check.transaction_set} matched {wanted} "
            f"({len(answers)} {check.transaction_set} answered in all)"
        )
        return items.unmatched_run(check, details, {**evidence, "control_number": None})
    best, results = items.best_scored(chosen, lambda row: _items(check, row, len(chosen)), "id")
    subject = f"{check.transaction_set} {best['control_number']}"
    return items.scored_run(
        check, subject, results, {**evidence, "control_number": best["control_number"]}
    )


def compile_x12_check(check: X12ResponseCheck) -> list[tuple[str, str]]:
    """Every path in correlate_by and fields is an X12 path."""
    return items.path_problems(check.correlate_by, check.fields, check_path, BadX12)


def _records(context: VerifyContext, check: X12ResponseCheck) -> list[dict[str, Any]]:
    return fetch_rows(context, check, ROWS, "the X12 records", service=check.service)


def _document(raw: str) -> Any:
    try:
        return parse(raw)
    except BadX12:
        return None


def _matches(row: dict[str, Any], request: dict[str, Any] | None, check: X12ResponseCheck) -> bool:
    """Every correlate_by path equals its value in the response or in its request."""
    documents = [_document(row["raw"]), _document(request["raw"]) if request else None]
    documents = [document for document in documents if document is not None]
    for path, wanted in check.correlate_by.items():
        try:
            if not any(items.compare_item(read(doc, path), "eq", wanted) for doc in documents):
                return False
        except BadX12 as error:
            raise CheckError(f"check {check.name!r}: {error}") from None
    return True


def _items(check: X12ResponseCheck, row: dict[str, Any], matched: int) -> list[items.ItemResult]:
    document = _document(row["raw"])

    def actual_at(path: str) -> Any:
        return read(document, path) if document is not None else None

    return items.field_items(check, check.fields, actual_at, (BadX12,)) + items.tally_items(
        check, matched
    )
