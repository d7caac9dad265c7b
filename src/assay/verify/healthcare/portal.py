"""`portal-state-match` checks: a portal row chosen by `correlate_by` has the expected values
(docs/contracts/healthcare.md §5): the best-matching row is scored item by item."""

from __future__ import annotations

import json
from typing import Any

from assay.formats.checks import PortalStateMatchCheck
from assay.verify.check_run import CheckRun
from assay.verify.context import VerifyContext
from assay.verify.healthcare import items
from assay.verify.healthcare.rows import fetch_rows
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
        return items.none_asked_run(check, len(rows), subject, evidence)
    if not rows:
        details = f"no {resource} row matched {json.dumps(wanted, default=str)}"
        return items.unmatched_run(check, details, {**evidence, "key": None}, "assertions")
    best, results = items.best_scored(
        rows, lambda row: _items(check, row, len(rows)), "updated_turn"
    )
    subject = f"{resource} {best['key']}"
    return items.scored_run(check, subject, results, {**evidence, "key": best["key"]}, "assertions")


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
    params = {"resource": resource}
    found = fetch_rows(context, check, ROWS, "the portal", params, check.service)
    for row in found:
        row["data"] = json.loads(row["data"])
    return found


def _matches(row: dict[str, Any], wanted: dict[str, Any]) -> bool:
    for name, value in wanted.items():
        actual = row["key"] if name == "key" else read_path(row["data"], name)
        if not items.compare_item(actual, "eq", value):
            return False
    return True


def _items(
    check: PortalStateMatchCheck, row: dict[str, Any], matched: int
) -> list[items.ItemResult]:
    changed = row["updated_turn"] > 0 if check.changed else None
    fields = items.field_items(check, check.assertions, lambda path: read_path(row["data"], path))
    return fields + items.tally_items(check, matched, changed)
