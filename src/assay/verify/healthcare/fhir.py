"""`fhir-resource-state` checks: a FHIR search on the final state returns a resource with the
expected field values (docs/contracts/healthcare.md §2.2); the best-matching resource is scored item
by item."""

from __future__ import annotations

import json
import re
from typing import Any

from assay.errors import CheckError
from assay.formats.checks import FhirResourceStateCheck
from assay.verify.check_run import CheckRun
from assay.verify.context import VerifyContext
from assay.verify.healthcare import items
from assay.verify.healthcare.rows import fetch_rows
from assay.world.services.healthcare.fhir.fhirpath import syntax_problem
from assay.world.services.healthcare.fhir.query import select
from assay.world.services.healthcare.fhir.search import SearchError
from assay.world.services.healthcare.fhir.validate import model_class

ROWS = (
    "SELECT id, resource, last_updated, created_turn, version_id FROM sandbox_fhir_resources "
    "WHERE resource_type = :type AND deleted = 0"
)
DOTTED_INDEX = re.compile(r"\.(\d+)(?=\.|$)")


def fhir_path(path: str) -> str:
    """The vendor's dotted form (`participant.0.actor.display`) as FHIRPath; FHIRPath as is."""
    return DOTTED_INDEX.sub(r"[\1]", path)


def run_fhir_check(check: FhirResourceStateCheck, context: VerifyContext) -> CheckRun:
    rows = _rows(context, check, check.resource_type)
    by_id = {row["id"]: row for row in rows}

    def resources(resource_type: str) -> list[dict[str, Any]]:  # chained parameters read others
        found = (
            rows if resource_type == check.resource_type else _rows(context, check, resource_type)
        )
        return [row["resource"] for row in found]

    try:
        selection = select(resources, check.resource_type, check.search)
    except SearchError as error:
        raise CheckError(f"check {check.name!r}: {error}") from None
    matched = [by_id[resource["id"]] for resource in selection.matches]
    evidence: dict[str, Any] = {
        "resource_type": check.resource_type,
        "search": check.search,
        "matched": len(matched),
    }
    if check.asks_none:
        subject = check.resource_type
        if check.changed:
            matched = [row for row in matched if _changed(row)]
            subject += " written during the task run"
        return items.none_asked_run(check, len(matched), subject, evidence)
    if not matched:
        details = f"no {check.resource_type} matched search {json.dumps(check.search)}"
        return items.unmatched_run(check, details, {**evidence, "resource": None})
    best, results = items.best_scored(
        matched, lambda row: _items(check, row, len(matched)), "last_updated", "id"
    )
    reference = f"{check.resource_type}/{best['id']}"
    return items.scored_run(check, reference, results, {**evidence, "resource": reference})


def compile_fhir_check(check: FhirResourceStateCheck) -> list[tuple[str, str]]:
    """(field, problem) for a resource type R4 lacks, a search parameter the server does not know,
    and a path that is not FHIRPath."""
    if model_class(check.resource_type) is None:
        return [("resource_type", f"{check.resource_type!r} is not a FHIR R4 resource type")]
    problems = []
    for name, value in check.search.items():
        try:
            select(lambda _type: [], check.resource_type, {name: value})
        except SearchError as error:  # an unknown parameter or modifier, a value it cannot read
            problems.append((f"search.{name}", str(error)))
    for index, item in enumerate(check.fields):
        problem = syntax_problem(fhir_path(item.path))
        if problem:
            problems.append((f"fields[{index}].path", f"not a FHIRPath: {problem}"))
    return problems


def _rows(
    context: VerifyContext, check: FhirResourceStateCheck, resource_type: str
) -> list[dict[str, Any]]:
    found = fetch_rows(context, check, ROWS, "the FHIR store", {"type": resource_type})
    for row in found:
        row["resource"] = json.loads(row["resource"])
    return found


def _items(
    check: FhirResourceStateCheck, row: dict[str, Any], matched: int
) -> list[items.ItemResult]:
    from fhirpathpy import evaluate

    def actual_at(path: str) -> Any:
        values = evaluate(row["resource"], fhir_path(path))
        return None if not values else values[0] if len(values) == 1 else values

    changed = _changed(row) if check.changed else None
    return items.field_items(check, check.fields, actual_at) + items.tally_items(
        check, matched, changed
    )


def _changed(row: dict[str, Any]) -> bool:
    """Created or written during the task run (a seed at its first version is not)."""
    return int(row["created_turn"]) > 0 or int(row["version_id"]) > 1
