"""Service kinds: the built-in ones by name, custom ones as `module:Class` or `file.py:Class`."""

from __future__ import annotations

import importlib
from pathlib import Path

from assay.world.modules import load_file
from assay.world.services.base import Service, canonical
from assay.world.services.email import Email
from assay.world.services.payments import Payments
from assay.world.services.recorder import Recorder

# The healthcare kinds are imported when a world names one: most worlds never do.
HEALTHCARE_KINDS = {
    "fhir": "assay.world.services.healthcare.fhir:FhirServer",
    "files": "assay.world.services.healthcare.files:FileTree",
    "hl7": "assay.world.services.healthcare.hl7:Hl7Interface",
    "portal": "assay.world.services.healthcare.portal:Portal",
    "voice": "assay.world.services.healthcare.voice:VoiceLine",
    "x12": "assay.world.services.healthcare.x12:Clearinghouse",
}
BUILTIN_KINDS: dict[str, type[Service]] = {kind.kind: kind for kind in (Recorder, Email, Payments)}


def service_class(kind: str, root: Path) -> type[Service]:
    """The class for a kind; raises LookupError saying why it cannot be found."""
    if kind in BUILTIN_KINDS:
        return BUILTIN_KINDS[kind]
    if kind in HEALTHCARE_KINDS:
        module_name, _, class_name = HEALTHCARE_KINDS[kind].partition(":")
        return getattr(importlib.import_module(module_name), class_name)
    if ":" not in kind:
        known = ", ".join(sorted([*BUILTIN_KINDS, *HEALTHCARE_KINDS]))
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
