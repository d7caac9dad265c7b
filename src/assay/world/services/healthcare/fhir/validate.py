"""FHIR R4 resources checked with the R4B models of fhir.resources, plus the required code
bindings the models do not enforce (docs/contracts/healthcare.md §2.3)."""

from __future__ import annotations

from typing import Any

from assay.errors import UsageError

# resource type → element → allowed codes (the R4 required bindings tasks grade on)
BINDINGS: dict[str, dict[str, tuple[str, ...]]] = {
    "Patient": {"gender": ("male", "female", "other", "unknown")},
    "Appointment": {
        "status": (
            "proposed",
            "pending",
            "booked",
            "arrived",
            "fulfilled",
            "cancelled",
            "noshow",
            "entered-in-error",
            "checked-in",
            "waitlist",
        )
    },
    "Slot": {"status": ("busy", "free", "busy-unavailable", "busy-tentative", "entered-in-error")},
    "Encounter": {
        "status": (
            "planned",
            "arrived",
            "triaged",
            "in-progress",
            "onleave",
            "finished",
            "cancelled",
            "entered-in-error",
            "unknown",
        )
    },
    "Observation": {
        "status": (
            "registered",
            "preliminary",
            "final",
            "amended",
            "corrected",
            "cancelled",
            "entered-in-error",
            "unknown",
        )
    },
    "ServiceRequest": {
        "status": (
            "draft",
            "active",
            "on-hold",
            "revoked",
            "completed",
            "entered-in-error",
            "unknown",
        ),
        "intent": (
            "proposal",
            "plan",
            "directive",
            "order",
            "original-order",
            "reflex-order",
            "filler-order",
            "instance-order",
            "option",
        ),
    },
    "Coverage": {"status": ("active", "cancelled", "draft", "entered-in-error")},
}


class InvalidResource(ValueError):
    """The resource is not valid FHIR R4; `issues` are (FHIR path, message) pairs."""

    def __init__(self, issues: list[tuple[str, str]], code: str = "invalid"):
        self.issues = issues
        self.code = code
        super().__init__("; ".join(f"{path}: {message}" for path, message in issues))


def model_class(resource_type: str) -> Any:
    try:
        from fhir.resources.R4B import get_fhir_model_class  # only worlds with a FHIR server
    except ImportError:
        raise UsageError(
            "a fhir service needs the FHIR libraries: pip install 'assay[health]'"
        ) from None

    try:
        return get_fhir_model_class(resource_type)
    except (ValueError, KeyError):
        return None


def validated(resource: Any, allowed: set[str] | None = None) -> dict[str, Any]:
    """The resource as plain JSON once the R4B model and the bindings accept it; InvalidResource."""
    from pydantic import ValidationError

    if not isinstance(resource, dict) or not isinstance(resource.get("resourceType"), str):
        raise InvalidResource([("resourceType", "a resource is a JSON object with resourceType")])
    resource_type = resource["resourceType"]
    model = model_class(resource_type)
    if model is None or (allowed is not None and resource_type not in allowed):
        raise InvalidResource([("resourceType", f"{resource_type!r} is not served here")])
    try:
        parsed = model.model_validate(resource)
    except ValidationError as error:
        issues = [(_path(resource_type, e["loc"]), e["msg"]) for e in error.errors()[:10]]
        raise InvalidResource(issues) from None
    plain = parsed.model_dump(mode="json", exclude_none=True)
    bad = [
        (f"{resource_type}.{element}", f"{plain[element]!r} is not one of {', '.join(codes)}")
        for element, codes in BINDINGS.get(resource_type, {}).items()
        if element in plain and plain[element] not in codes
    ]
    if bad:
        raise InvalidResource(bad, code="code_invalid")
    return plain


def _path(resource_type: str, location: tuple[Any, ...]) -> str:
    path = resource_type
    for part in location:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path
