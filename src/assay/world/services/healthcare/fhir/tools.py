"""The FHIR server's tools: read, vread, search, create, update, delete
(docs/contracts/healthcare.md §2.1)."""

from __future__ import annotations

from typing import Any

from assay.world.services.lookup import service_for
from assay.world.tools import Tool


def _server(world: Any, service: str | None) -> Any:
    return service_for(world, "fhir", service)


def fhir_read(
    world: Any, resource_type: str, id: str, service: str | None = None
) -> dict[str, Any]:
    """Read the current version of one FHIR resource.

    Args:
        resource_type: e.g. Patient, Appointment.
        id: The resource's id.
        service: The FHIR server to use, when the world has more than one.
    """
    return _server(world, service).request("read", {"resource_type": resource_type, "id": id})


def fhir_vread(
    world: Any,
    resource_type: str,
    id: str,
    version: int,
    service: str | None = None,
) -> dict[str, Any]:
    """Read one version of a FHIR resource.

    Args:
        resource_type: e.g. Patient.
        id: The resource's id.
        version: Its meta.versionId.
        service: The FHIR server to use, when the world has more than one.
    """
    payload = {"resource_type": resource_type, "id": id, "version": version}
    return _server(world, service).request("vread", payload)


def fhir_search(
    world: Any,
    resource_type: str,
    params: dict[str, str | list[str]] | None = None,
    lenient: bool = False,
    service: str | None = None,
) -> dict[str, Any]:
    """Search FHIR resources of one type; returns one page of a searchset Bundle (`_count`
    entries from `_offset`, its `next` link naming the next page). An unknown parameter is
    refused.

    Args:
        resource_type: e.g. Slot.
        params: FHIR search parameters as strings, e.g. {"status": "free", "start": "ge2026-03-05"};
            a list is a parameter repeated (all must match), e.g. {"date": ["ge2026", "lt2027"]}.
        lenient: Leave out a parameter the server refuses instead of refusing the search; the
            Bundle's OperationOutcome entry says which.
        service: The FHIR server to use, when the world has more than one.
    """
    payload: dict[str, Any] = {"resource_type": resource_type, "params": params or {}}
    if lenient:
        payload["lenient"] = True
    return _server(world, service).request("search", payload)


def fhir_create(
    world: Any,
    resource: dict[str, Any],
    if_none_exist: str | None = None,
    service: str | None = None,
) -> dict[str, Any]:
    """Create a FHIR resource; the server gives it its id and meta. Returns it.

    Args:
        resource: The resource as FHIR JSON, with resourceType.
        if_none_exist: A search (e.g. "identifier=http://x|42"): create only if nothing matches,
            else return the match.
        service: The FHIR server to use, when the world has more than one.
    """
    payload = {"resource": resource, "if_none_exist": if_none_exist}
    return _server(world, service).request("create", payload)


def fhir_update(
    world: Any,
    resource: dict[str, Any],
    if_match: str | None = None,
    conditional: str | None = None,
    service: str | None = None,
) -> dict[str, Any]:
    """Replace a FHIR resource (it names its id); returns the new version.

    Args:
        resource: The whole resource as FHIR JSON, with resourceType and id.
        if_match: The version you read (e.g. W/"1"): refused if the resource changed since.
        conditional: A search (e.g. "identifier=http://x|42") choosing the resource instead of
            its id: no match creates it, one match is replaced, several are refused.
        service: The FHIR server to use, when the world has more than one.
    """
    payload: dict[str, Any] = {"resource": resource, "if_match": if_match}
    if conditional:
        payload["conditional"] = conditional
    return _server(world, service).request("update", payload)


def fhir_delete(
    world: Any, resource_type: str, id: str, service: str | None = None
) -> dict[str, Any]:
    """Delete a FHIR resource; reading it afterwards says it is gone. Returns an
    OperationOutcome saying what was done.

    Args:
        resource_type: e.g. Appointment.
        id: The resource's id.
        service: The FHIR server to use, when the world has more than one.
    """
    return _server(world, service).request("delete", {"resource_type": resource_type, "id": id})


def fhir_transaction(
    world: Any, bundle: dict[str, Any], service: str | None = None
) -> dict[str, Any]:
    """Send a transaction Bundle (all entries or none) or a batch Bundle (each on its own);
    `urn:uuid:` references between new entries become the ids the server gives.

    Args:
        bundle: A Bundle with type transaction or batch; each entry has request.method and url.
        service: The FHIR server to use, when the world has more than one.
    """
    return _server(world, service).request("transaction", {"bundle": bundle})


FHIR_TOOLS = (
    Tool(fhir_read),
    Tool(fhir_vread),
    Tool(fhir_search),
    Tool(fhir_create, writes=True),
    Tool(fhir_update, writes=True),
    Tool(fhir_delete, writes=True),
    Tool(fhir_transaction, writes=True),
)
