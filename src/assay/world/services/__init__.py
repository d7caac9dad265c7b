"""Service kinds: the built-in ones by name, custom ones as `module:Class` or `file.py:Class`."""

from __future__ import annotations

from assay.world.services.base import Service, canonical
from assay.world.services.email import Email
from assay.world.services.kinds import SERVICE_KINDS, service_class
from assay.world.services.payments import Payments
from assay.world.services.recorder import Recorder

# The healthcare kinds, by reference: their modules load when a world names one (most never do).
for _kind, _class in {
    "fhir": "fhir:FhirServer",
    "files": "files:FileTree",
    "hl7": "hl7:Hl7Interface",
    "portal": "portal:Portal",
    "voice": "voice:VoiceLine",
    "x12": "x12:Clearinghouse",
}.items():
    SERVICE_KINDS.declare(_kind, f"assay.world.services.healthcare.{_class}")

__all__ = [
    "SERVICE_KINDS",
    "Email",
    "Payments",
    "Recorder",
    "Service",
    "canonical",
    "service_class",
]
