"""The seam between search and the REST layer: `select` finds a search's matches (sorted) and
`shaped` trims one for `_summary`/`_elements`. A minimal version over `search.matcher`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from assay.world.services.healthcare.fhir.search import SearchError, matcher

PAGING = frozenset({"_count", "_offset"})  # parameters the REST layer reads itself
SHAPING = frozenset({"_sort", "_total", "_summary", "_elements", "_format", "_pretty"})


@dataclass(frozen=True)
class Selection:
    matches: list[dict[str, Any]]  # every match, in _sort order (ties by lastUpdated, id)
    included: list[dict[str, Any]]  # resources added by _include/_revinclude
    total: str  # the _total asked: "accurate" (default), "estimate" or "none"
    summary: str | None  # _summary asked
    elements: list[str] | None  # _elements asked


def select(
    resources: Callable[[str], list[dict[str, Any]]],
    resource_type: str,
    params: Mapping[str, str | list[str]],
) -> Selection:
    """Every resource of `resource_type` matching `params` (a list is AND, a comma inside one value
    OR); SearchError for a parameter or value the server cannot read."""
    values = {name: [v] if isinstance(v, str) else list(v) for name, v in params.items()}
    tests = [
        matcher(resource_type, {name: value})
        for name, listed in values.items()
        if name not in PAGING and name not in SHAPING
        for value in listed
    ]
    found = [r for r in resources(resource_type) if all(test(r) for test in tests)]
    total = _one(values, "_total") or "accurate"
    if total not in ("accurate", "estimate", "none"):
        raise SearchError(f"_total: {total!r} is not accurate, estimate or none")
    elements = _one(values, "_elements")
    return Selection(
        matches=_sorted(found, _one(values, "_sort")),
        included=[],
        total=total,
        summary=_one(values, "_summary"),
        elements=elements.split(",") if elements else None,
    )


def shaped(resource: dict[str, Any], selection: Selection) -> dict[str, Any]:
    """The resource as _summary/_elements ask (with the SUBSETTED meta.tag), else unchanged."""
    if not selection.elements:
        return resource
    kept = {k: v for k, v in resource.items() if k in {"resourceType", "id", *selection.elements}}
    subsetted = {"system": "http://terminology.hl7.org/CodeSystem/v3-ObservationValue"}
    tags = [*resource.get("meta", {}).get("tag", []), {**subsetted, "code": "SUBSETTED"}]
    return {**kept, "meta": {**resource.get("meta", {}), "tag": tags}}


def _one(values: dict[str, list[str]], name: str) -> str | None:
    listed = values.get(name)
    return listed[-1] if listed else None


def _sorted(found: list[dict[str, Any]], sort: str | None) -> list[dict[str, Any]]:
    if not sort:
        return found
    key = sort.lstrip("-")
    paths = {"_lastUpdated": lambda r: r.get("meta", {}).get("lastUpdated", ""), "date": _date_of}
    if key not in paths:
        raise SearchError(f"_sort: {sort!r} is not _lastUpdated or date")
    return sorted(found, key=paths[key], reverse=sort.startswith("-"))


def _date_of(resource: dict[str, Any]) -> str:
    for field in ("start", "effectiveDateTime", "authoredOn", "birthDate", "date"):
        if isinstance(resource.get(field), str):
            return resource[field]
    return str(resource.get("period", {}).get("start", ""))
