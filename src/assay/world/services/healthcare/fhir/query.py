"""One FHIR R4 search as the REST layer asks it: the matches in `_sort` order, the resources
`_include`/`_revinclude` add, and what `_total`, `_summary` and `_elements` ask of the answer."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from assay.world.services.healthcare.fhir.dates import value_ranges
from assay.world.services.healthcare.fhir.matching import (
    SearchError,
    codes,
    plain,
    reference_parts,
    strings,
)
from assay.world.services.healthcare.fhir.params import known
from assay.world.services.healthcare.fhir.paths import evaluator
from assay.world.services.healthcare.fhir.search import Resources, matcher, parameter, values_of
from assay.world.services.healthcare.fhir.shape import subset

__all__ = ["PAGING", "Selection", "select", "shaped"]

PAGING = frozenset({"_count", "_offset"})  # parameters the REST layer reads itself
TOTALS = ("accurate", "estimate", "none")
SUMMARIES = ("true", "count", "data", "text", "false")


@dataclass(frozen=True)
class Selection:
    matches: list[dict[str, Any]]  # every match, already in _sort order (stable: ties by id)
    included: list[dict[str, Any]]  # resources added by _include/_revinclude (search.mode include)
    total: str  # the _total asked: "accurate" (default), "estimate" or "none"
    summary: str | None  # _summary asked: None, "true", "count", "data", "text", "false"
    elements: list[str] | None  # _elements asked, or None
    including: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = field(
        default=None, repr=False, compare=False
    )

    def included_for(self, page: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """What _include/_revinclude add for one page of the matches (R4: for those alone)."""
        return self.including(page) if self.including is not None else []


def select(
    resources: Resources, resource_type: str, params: Mapping[str, str | list[str]]
) -> Selection:
    """The search `params` (a list value is the parameter repeated) over `resources` (type → its
    current resources). Raises SearchError for a parameter, modifier or value it cannot read."""
    cached = _Cached(resources)
    for name in params:
        if name.partition(":")[0] in ("_include", "_revinclude") and ":" in name:
            raise SearchError(f"{name}: :iterate is not supported")
    total = _one_of(params, "_total", TOTALS, "accurate")
    summary = _one_of(params, "_summary", SUMMARIES, None)
    elements = _listed(params, "_elements")
    sort = _listed(params, "_sort")
    includes = [_include(resource_type, v) for v in values_of(params.get("_include", []))]
    revincludes = [_revinclude(v) for v in values_of(params.get("_revinclude", []))]
    test = matcher(resource_type, params, cached)
    found = [resource for resource in cached(resource_type) if test(resource)]
    found = sorted_by(resource_type, found, sort or [])
    included = _included(cached, resource_type, found, includes, revincludes)

    def including(page: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return _included(cached, resource_type, page, includes, revincludes)

    return Selection(found, included, total, summary, elements, including)


class _Cached:
    """Each type's resources read once per search (chains and includes ask again)."""

    def __init__(self, resources: Resources):
        self.resources, self.read = resources, {}

    def __call__(self, resource_type: str) -> list[dict[str, Any]]:
        if resource_type not in self.read:
            self.read[resource_type] = self.resources(resource_type)
        return self.read[resource_type]


def _one_of(params: Mapping[str, Any], name: str, allowed: tuple[str, ...], default: Any) -> Any:
    if name not in params:
        return default
    given = values_of(params[name])
    if len(given) != 1 or given[0] not in allowed:
        raise SearchError(f"{name}: use one of {', '.join(allowed)}, not {', '.join(given)!r}")
    return given[0]


def _listed(params: Mapping[str, Any], name: str) -> list[str] | None:
    if name not in params:
        return None
    return [part.strip() for value in values_of(params[name]) for part in value.split(",") if part]


def _include(resource_type: str, value: str) -> tuple[str, str, str | None]:
    source, name, target = _include_parts("_include", value)
    if source != resource_type:
        raise SearchError(f"_include={value}: include from the searched type {resource_type}")
    return source, name, target


def _revinclude(value: str) -> tuple[str, str, str | None]:
    return _include_parts("_revinclude", value)


def _include_parts(kind: str, value: str) -> tuple[str, str, str | None]:
    parts = value.split(":")
    if "*" in parts:
        raise SearchError(f"{kind}={value}: the wildcard * is not supported")
    if len(parts) not in (2, 3):
        raise SearchError(f"{kind}={value}: write Type:parameter or Type:parameter:TargetType")
    param = parameter(parts[0], parts[1])
    if param.type != "reference":
        raise SearchError(f"{kind}={value}: {parts[1]} is not a reference parameter")
    return parts[0], parts[1], parts[2] if len(parts) == 3 else None


def _included(
    resources: Resources,
    resource_type: str,
    matches: list[dict[str, Any]],
    includes: list[tuple[str, str, str | None]],
    revincludes: list[tuple[str, str, str | None]],
) -> list[dict[str, Any]]:
    """The resources the matches reference (_include) and that reference a match (_revinclude),
    each once and none that is already a match."""
    seen = {(resource_type, resource["id"]) for resource in matches}
    added: list[dict[str, Any]] = []

    def add(resource: dict[str, Any]) -> None:
        key = (resource["resourceType"], resource["id"])
        if key not in seen:
            seen.add(key)
            added.append(resource)

    for source, name, target in includes:
        named = {ref for match in matches for ref in _references(source, name, match)}
        for kind in sorted({kind for kind, _ in named if target in (None, kind)}):
            for resource in resources(kind):
                if (kind, resource["id"]) in named:
                    add(resource)
    matched = {(resource_type, resource["id"]) for resource in matches}
    for source, name, target in revincludes:
        if target not in (None, resource_type):
            continue
        for resource in resources(source):
            if matched & set(_references(source, name, resource)):
                add(resource)
    return added


def _references(resource_type: str, name: str, resource: dict[str, Any]) -> list[tuple[str, str]]:
    values = evaluator(known(resource_type)[name].expression)(resource)
    found = [item.get("reference") for item in values if isinstance(item, dict)]
    return [parts for ref in found if isinstance(ref, str) and (parts := reference_parts(ref))]


def sorted_by(
    resource_type: str, found: list[dict[str, Any]], keys: list[str]
) -> list[dict[str, Any]]:
    """`_sort=-birthdate,family`: by each key in turn (`-` descending; a resource without a value
    last), ties by id. A multi-valued element sorts by its lowest value, or highest descending."""
    ordered = sorted(found, key=lambda resource: resource.get("id", "")) if keys else found
    for key in reversed(keys):
        descending = key.startswith("-")
        param = parameter(resource_type, key.removeprefix("-"))
        values = evaluator(param.expression)

        def sort_key(
            resource: dict[str, Any], kind=param.type, values=values, descending=descending
        ) -> tuple:
            found = [k for item in values(resource) for k in _sort_values(kind, item)]
            if not found:
                return (not descending, "")
            return (descending, max(found) if descending else min(found))

        ordered.sort(key=sort_key, reverse=descending)
    return ordered


def shaped(resource: dict[str, Any], selection: Selection) -> dict[str, Any]:
    """The resource as _summary/_elements ask (with the SUBSETTED meta.tag), else unchanged."""
    return subset(resource, selection.summary, selection.elements)


def _sort_values(kind: str, item: Any) -> list[Any]:
    """The comparable values of one element for its parameter type."""
    if kind == "date":
        return [start for start, _ in value_ranges(item)]
    if kind in ("number", "quantity"):
        value = item.get("value") if isinstance(item, dict) else item
        if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
            return [Decimal(str(value))]
        return []
    if kind == "string":
        return [plain(text) for text in strings(item)]
    if kind == "reference":
        reference = item.get("reference") if isinstance(item, dict) else item
        return [reference] if isinstance(reference, str) else []
    return [code for _, code in codes(item)] or ([item] if isinstance(item, str) else [])
