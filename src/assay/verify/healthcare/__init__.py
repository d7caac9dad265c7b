"""The typed checks of the healthcare services: FHIR resources, portal rows, voice transcripts."""
