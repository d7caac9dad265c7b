"""Find the service a built-in tool acts on: the one named, or the only one of its kind."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.errors import ToolError

if TYPE_CHECKING:
    from assay.world.live import LiveWorld
    from assay.world.services.base import Service


def service_for(world: LiveWorld, kind: str, name: str | None = None) -> Service:
    """The service called `name`, or the world's only service of `kind`; ToolError otherwise."""
    if name is not None:
        found = world.services.get(name)
        if found is None or found.kind != kind:
            raise ToolError("no_service", f"there is no {kind} service named {name!r}")
        return found
    of_kind = [service for service in world.services.values() if service.kind == kind]
    if len(of_kind) != 1:
        names = ", ".join(sorted(service.name for service in of_kind)) or "none"
        raise ToolError(
            "no_service", f"name the {kind} service to use with `service` (this world has: {names})"
        )
    return of_kind[0]
