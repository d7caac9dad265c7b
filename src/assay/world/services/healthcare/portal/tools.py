"""The portal's tools: submit, update, get and search keyed resources."""

from __future__ import annotations

from typing import Any

from assay.world.services.lookup import service_for
from assay.world.tools import Tool


def portal_submit(
    world: Any, resource: str, data: dict[str, Any], service: str | None = None
) -> dict[str, Any]:
    """Submit a new record to the payer portal (a prior authorisation gets its request id and a
    determination); returns it as stored.

    Args:
        resource: The kind of record, e.g. prior_auth or copay_note.
        data: The record's fields.
        service: The portal to use, when the world has more than one.
    """
    portal = service_for(world, "portal", service)
    return portal.request("submit", {"resource": resource, "data": data})


def portal_update(
    world: Any, resource: str, key: str, data: dict[str, Any], service: str | None = None
) -> dict[str, Any]:
    """Change fields of a record in the payer portal; returns it as stored.

    Args:
        resource: The kind of record.
        key: The record's key (a prior authorisation's request id, e.g. PA-0001).
        data: The fields to change.
        service: The portal to use, when the world has more than one.
    """
    portal = service_for(world, "portal", service)
    return portal.request("update", {"resource": resource, "key": key, "data": data})


def portal_get(world: Any, resource: str, key: str, service: str | None = None) -> dict[str, Any]:
    """Read one record of the payer portal.

    Args:
        resource: The kind of record.
        key: The record's key.
        service: The portal to use, when the world has more than one.
    """
    portal = service_for(world, "portal", service)
    return portal.request("get", {"resource": resource, "key": key})


def portal_search(
    world: Any, resource: str, filters: dict[str, Any] | None = None, service: str | None = None
) -> dict[str, Any]:
    """List the records of a kind in the payer portal whose fields equal the filters.

    Args:
        resource: The kind of record, e.g. patients or providers.
        filters: Field (dotted path) → value; every one must match.
        service: The portal to use, when the world has more than one.
    """
    portal = service_for(world, "portal", service)
    return portal.request("search", {"resource": resource, "filters": filters or {}})


PORTAL_TOOLS = (
    Tool(portal_submit, writes=True),
    Tool(portal_update, writes=True),
    Tool(portal_get),
    Tool(portal_search),
)
