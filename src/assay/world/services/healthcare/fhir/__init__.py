"""The FHIR R4 server (`kind = "fhir"`)."""

from assay.world.services.healthcare.fhir.service import FhirServer

__all__ = ["FhirServer"]
