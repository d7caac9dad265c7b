"""Service kinds: the built-in ones by name, custom ones as `module:Class` or `file.py:Class`."""

from __future__ import annotations

import importlib
from pathlib import Path

from assay.world.modules import load_file
from assay.world.services.base import Service, canonical
from assay.world.services.email import Email
from assay.world.services.healthcare.fhir import FhirServer
from assay.world.services.healthcare.files import FileTree
from assay.world.services.healthcare.hl7 import Hl7Interface
from assay.world.services.healthcare.portal import Portal
from assay.world.services.healthcare.voice import VoiceLine
from assay.world.services.healthcare.x12 import Clearinghouse
from assay.world.services.payments import Payments
from assay.world.services.recorder import Recorder

BUILTIN_KINDS: dict[str, type[Service]] = {
    kind.kind: kind
    for kind in (
        Recorder,
        Email,
        Payments,
        FhirServer,
        FileTree,
        Hl7Interface,
        Portal,
        VoiceLine,
        Clearinghouse,
    )
}


def service_class(kind: str, root: Path) -> type[Service]:
    """The class for a kind; raises LookupError saying why it cannot be found."""
    if kind in BUILTIN_KINDS:
        return BUILTIN_KINDS[kind]
    if ":" not in kind:
        known = ", ".join(sorted(BUILTIN_KINDS))
        raise LookupError(f"unknown service kind {kind!r}; use one of {known} or module:Class")
    module_name, _, class_name = kind.rpartition(":")
    if module_name.endswith(".py"):
        module = load_file(root / module_name)
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            raise LookupError(f"cannot import {module_name}: {error}") from None
    found = getattr(module, class_name, None)
    if not (isinstance(found, type) and issubclass(found, Service)):
        raise LookupError(f"{kind} is not a subclass of assay.Service")
    return found


__all__ = [
    "BUILTIN_KINDS",
    "Email",
    "Payments",
    "Recorder",
    "Service",
    "canonical",
    "service_class",
]
