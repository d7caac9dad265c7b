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
from assay.verify.healthcare.items import (
    ItemResult,
    compare_item,
    item_details,
    item_score,
    none_asked_run,
)
from assay.world.guard import QueryFailed, QueryLimit, QueryRefused, QueryTimeout
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
        return none_asked_run(check, len(chosen), check.transaction_set, evidence)
    if not chosen:
        wanted = json.dumps(check.correlate_by, default=str)
        details = (
            f"no {check.transaction_set} matched {wanted} "
            f"({len(answers)} {check.transaction_set} answered in all)"
        )
        evidence.update(control_number=None, field_results=[])
        return CheckRun.of(check, passed=False, score=0.0, details=details, evidence=evidence)
    scored = [(row, _items(check, row, len(chosen))) for row in chosen]
    best, items = max(scored, key=lambda pair: (sum(i.passed for i in pair[1]), pair[0]["id"]))
    score, passed = item_score(items)
    evidence.update(
        control_number=best["control_number"], field_results=[item.as_json() for item in items]
    )
    details = item_details(f"{check.transaction_set} {best['control_number']}", items)
    return CheckRun.of(check, passed=passed, score=score, details=details, evidence=evidence)


def compile_x12_check(check: X12ResponseCheck) -> list[tuple[str, str]]:
    named = [(f"correlate_by.{key}", key) for key in check.correlate_by]
    named += [(f"fields[{index}].path", item.path) for index, item in enumerate(check.fields)]
    found = []
    for where, path in named:
        try:
            check_path(path)
        except BadX12 as error:
            found.append((where, str(error)))
    return found


def _records(context: VerifyContext, check: X12ResponseCheck) -> list[dict[str, Any]]:
    try:
        names, rows = context.final.fetch(ROWS, {})
    except (QueryRefused, QueryFailed, QueryTimeout, QueryLimit) as error:
        raise CheckError(
            f"check {check.name!r}: the X12 records could not be read: {error}"
        ) from None
    found = [dict(zip(names, row, strict=True)) for row in rows]
    if check.service is not None:
        found = [row for row in found if row["service"] == check.service]
    return found


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
            if not any(compare_item(read(doc, path), "eq", wanted) for doc in documents):
                return False
        except BadX12 as error:
            raise CheckError(f"check {check.name!r}: {error}") from None
    return True


def _items(check: X12ResponseCheck, row: dict[str, Any], matched: int) -> list[ItemResult]:
    document = _document(row["raw"])
    items = []
    for item in check.fields:
        try:
            actual = read(document, item.path) if document is not None else None
        except BadX12 as error:
            raise CheckError(f"check {check.name!r}: {error}") from None
        items.append(
            ItemResult(
                item.path, item.expected, actual, compare_item(actual, item.op, item.expected)
            )
        )
    if check.count is not None:
        items.append(ItemResult("$count", check.count, matched, matched == check.count))
    return items
