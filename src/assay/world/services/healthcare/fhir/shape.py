"""A resource cut down as `_summary` or `_elements` asks (R4 search.html §3.1.1.5.8–9): the
summary elements, the text, the data without the text, or the elements named; the mandatory
elements stay, and the copy carries the SUBSETTED tag."""

from __future__ import annotations

from functools import cache
from typing import Any

SUBSETTED = {
    "system": "http://terminology.hl7.org/CodeSystem/v3-ObservationValue",
    "code": "SUBSETTED",
    "display": "subsetted",
}
ALWAYS = frozenset({"resourceType", "id", "meta"})


def subset(
    resource: dict[str, Any], summary: str | None, elements: list[str] | None
) -> dict[str, Any]:
    """`resource` for `_summary` (`true`, `text`, `data`; `count` and `false` leave it whole) or,
    without one, for `_elements`; unchanged when neither asks for less."""
    kind = resource.get("resourceType", "")
    if summary == "true":
        keep = ALWAYS | _summary_elements(kind) | _required(kind)
    elif summary == "text":
        keep = ALWAYS | {"text"} | _required(kind)
    elif summary == "data":
        keep = frozenset(resource) - {"text"}
    elif summary is None and elements is not None:
        named = {name.partition(".")[0] for name in elements}
        keep = ALWAYS | _required(kind) | {key for key in resource if _element(key) in named}
    else:
        return resource
    cut = {key: value for key, value in resource.items() if _element(key) in keep or key in keep}
    meta = dict(cut.get("meta", {}))
    tags = [tag for tag in meta.get("tag", []) if tag.get("code") != "SUBSETTED"]
    meta["tag"] = [*tags, SUBSETTED]
    return {**cut, "meta": meta}


def _element(key: str) -> str:
    """The element a JSON key is of: `_birthDate` is birthDate's extension."""
    return key.removeprefix("_")


@cache
def _fields(resource_type: str) -> list[tuple[str, dict[str, Any]]]:
    """(JSON key, what the model says of it) per element; `required` where the model needs it."""
    from assay.world.services.healthcare.fhir.validate import model_class

    model = model_class(resource_type)
    if model is None:
        return []
    return [
        (field.alias or name, {**field.json_schema_extra, "required": field.is_required()})
        for name, field in model.model_fields.items()
        if isinstance(field.json_schema_extra, dict)
    ]


@cache
def _summary_elements(resource_type: str) -> frozenset[str]:
    """The elements R4 marks isSummary (the fhir.resources model's `summary_element_property`)."""
    return frozenset(
        key for key, extra in _fields(resource_type) if extra.get("summary_element_property")
    )


@cache
def _required(resource_type: str) -> frozenset[str]:
    """The elements of minimum cardinality 1, which a subset keeps so it stays valid."""
    return frozenset(
        key
        for key, extra in _fields(resource_type)
        if extra["required"] or extra.get("element_required") or extra.get("one_of_many_required")
    )
