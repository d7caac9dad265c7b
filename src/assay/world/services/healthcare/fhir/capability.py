"""The server's CapabilityStatement (R4 capabilitystatement.html): for the types it serves, the
interactions a role's tools allow and the search parameters it knows."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from assay.world.services.healthcare.fhir.params import known

# tool → the R4 type-level interaction it carries out
INTERACTIONS = {
    "fhir_read": "read",
    "fhir_vread": "vread",
    "fhir_update": "update",
    "fhir_delete": "delete",
    "fhir_create": "create",
    "fhir_search": "search-type",
}
FORMATS = ["application/fhir+json", "json"]


def capability_statement(
    types: Iterable[str], tools: Collection[str], base: str, date: str, version: str
) -> dict[str, Any]:
    """What this server does for a caller allowed `tools`, served at `base`.

    date: when the statement was published (the world's clock start); version: assay's.
    """
    rest: dict[str, Any] = {"mode": "server"}
    resources = [_resource(kind, tools) for kind in sorted(types)]
    if any("interaction" in resource for resource in resources):
        rest["resource"] = [resource for resource in resources if "interaction" in resource]
    if "fhir_transaction" in tools:
        rest["interaction"] = [{"code": "transaction"}, {"code": "batch"}]
    return {
        "resourceType": "CapabilityStatement",
        "status": "active",
        "date": date,
        "kind": "instance",
        "software": {"name": "assay", "version": version},
        "implementation": {"description": "assay's emulated FHIR R4 server", "url": base},
        "fhirVersion": "4.0.1",
        "format": FORMATS,
        "rest": [rest],
    }


def _resource(kind: str, tools: Collection[str]) -> dict[str, Any]:
    codes = [code for tool, code in INTERACTIONS.items() if tool in tools]
    entry: dict[str, Any] = {"type": kind}
    if not codes:
        return entry
    entry["interaction"] = [{"code": code} for code in codes]
    entry["versioning"] = "versioned"
    entry["readHistory"] = "fhir_vread" in tools
    entry["updateCreate"] = "fhir_update" in tools
    entry["conditionalCreate"] = "fhir_create" in tools
    entry["conditionalUpdate"] = "fhir_update" in tools
    entry["conditionalDelete"] = "not-supported"
    if "fhir_search" in tools:
        entry["searchParam"] = [
            {"name": name, "type": param_type}
            for name, (param_type, expression, *_) in sorted(known(kind).items())
            if expression and param_type != "special"  # those the server refuses are not listed
        ]
    return entry
