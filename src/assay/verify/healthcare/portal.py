"""`portal-state-match` checks: a portal row chosen by `correlate_by` has the expected values
(docs/contracts/healthcare.md §5): the best-matching row is scored item by item."""

from __future__ import annotations

import json
from typing import Any

from assay.errors import CheckError
from assay.formats.checks import PortalStateMatchCheck
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
from assay.world.services.healthcare.paths import read_path

ROWS = (
    "SELECT service, resource, key, data, version, updated_turn FROM sandbox_portal_state "
    "WHERE resource = :resource ORDER BY key"
)


def run_portal_check(check: PortalStateMatchCheck, context: VerifyContext) -> CheckRun:
    resource = str(check.correlate_by["resource"])
    wanted = {k: v for k, v in check.correlate_by.items() if k != "resource"}
    rows = [row for row in _rows(context, resource, check) if _matches(row, wanted)]
    evidence: dict[str, Any] = {"correlate_by": check.correlate_by, "matched": len(rows)}
    if check.asks_none:
        subject = f"{resource} row"
        if check.changed:
            rows = [row for row in rows if row["updated_turn"] > 0]
            subject += " written during the task run"
        return none_asked_run(check, len(rows), subject, evidence)
    if not rows:
        details = f"no {resource} row matched {json.dumps(wanted, default=str)}"
        evidence.update(key=None, assertion_results=[])
        return CheckRun.of(check, passed=False, score=0.0, details=details, evidence=evidence)
    scored = [(row, _items(check, row, len(rows))) for row in rows]
    best, items = max(scored, key=lambda pair: (_passed(pair[1]), pair[0]["updated_turn"]))
    score, passed = item_score(items)
    evidence.update(key=best["key"], assertion_results=[item.as_json() for item in items])
    details = item_details(f"{resource} {best['key']}", items, "assertions")
    return CheckRun.of(check, passed=passed, score=score, details=details, evidence=evidence)


def compile_portal_check(check: PortalStateMatchCheck) -> list[tuple[str, str]]:
    """Paths are dotted JSON paths, in the assertions and in correlate_by: no step may be empty."""
    found = [
        (f"correlate_by.{name}", "a path has no empty step")
        for name in check.correlate_by
        if name != "resource" and "" in name.split(".")
    ]
    return found + [
        (f"assertions[{index}].path", "a path has no empty step")
        for index, item in enumerate(check.assertions)
        if "" in item.path.split(".")
    ]


def _rows(
    context: VerifyContext, resource: str, check: PortalStateMatchCheck
) -> list[dict[str, Any]]:
    try:
        names, rows = context.final.fetch(ROWS, {"resource": resource})
    except (QueryRefused, QueryFailed, QueryTimeout, QueryLimit) as error:
        raise CheckError(f"check {check.name!r}: the portal could not be read: {error}") from None
    found = [dict(zip(names, row, strict=True)) for row in rows]
    if check.service is not None:
        found = [row for row in found if row["service"] == check.service]
    for row in found:
        row["data"] = json.loads(row["data"])
    return found


def _matches(row: dict[str, Any], wanted: dict[str, Any]) -> bool:
    for name, value in wanted.items():
        actual = row["key"] if name == "key" else read_path(row["data"], name)
        if not compare_item(actual, "eq", value):
            return False
    return True


def _items(check: PortalStateMatchCheck, row: dict[str, Any], matched: int) -> list[ItemResult]:
    items = []
    for item in check.assertions:
        actual = read_path(row["data"], item.path)
        items.append(
            ItemResult(
                item.path, item.expected, actual, compare_item(actual, item.op, item.expected)
            )
        )
    if check.count is not None:
        items.append(ItemResult("$count", check.count, matched, matched == check.count))
    if check.changed:
        changed = row["updated_turn"] > 0
        items.append(ItemResult("$changed", True, changed, changed))
    return items


def _passed(items: list[ItemResult]) -> int:
    return sum(item.passed for item in items)
