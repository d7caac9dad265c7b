"""Service kinds by name: the built-ins, declared beside their classes, and a user's kind as
`module:Class`, `file.py:Class` (beside world.toml) or an entry point in the group `assay.services`."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from assay.registry import KindError, Registry, is_reference
from assay.world.modules import load_file
from assay.world.services.base import Service


def _is_service_class(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, Service)


SERVICE_KINDS: Registry[type[Service]] = Registry(
    "service kind",
    group="assay.services",
    accepts=_is_service_class,
    expected="a subclass of assay.Service",
)
Kind = TypeVar("Kind", bound=type[Service])


def service_kind(kind: Kind) -> Kind:
    """Declare a built-in service kind, by its `kind`."""
    SERVICE_KINDS.declare(kind.kind, kind)
    return kind


def service_class(kind: str, root: Path) -> type[Service]:
    """The class for a kind; LookupError (KindError) saying why it cannot be found."""
    if not is_reference(kind):
        found = SERVICE_KINDS.find(kind)
        if found is None:
            known = ", ".join(sorted(SERVICE_KINDS.known()))
            raise KindError(f"unknown service kind {kind!r}; use one of {known} or module:Class")
        return found
    module_name = kind.rpartition(":")[0]
    if module_name.endswith(".py"):
        return SERVICE_KINDS.load(kind, import_module=lambda name: load_file(root / name))
    return SERVICE_KINDS.load(kind)
