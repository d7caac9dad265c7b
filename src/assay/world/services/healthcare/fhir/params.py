"""The search parameters the FHIR server knows: per resource type, name → (type, FHIRPath), after
the R4 SearchParameter expressions for the common parameters (SPEC §3.2)."""

from __future__ import annotations

Param = tuple[str, str]  # (token | string | reference | date | number | quantity, FHIRPath)

COMMON: dict[str, Param] = {"_id": ("token", "id"), "_lastUpdated": ("date", "meta.lastUpdated")}
SUBJECT: dict[str, Param] = {
    "patient": ("reference", "subject"),
    "subject": ("reference", "subject"),
}
NAMES: dict[str, Param] = {
    "name": ("string", "name.family | name.given | name.text"),
    "family": ("string", "name.family"),
    "given": ("string", "name.given"),
    "identifier": ("token", "identifier"),
}
CLINICAL: dict[str, Param] = {
    **SUBJECT,
    "status": ("token", "status"),
    "code": ("token", "code"),
    "category": ("token", "category"),
    "encounter": ("reference", "encounter"),
    "identifier": ("token", "identifier"),
}

PARAMS: dict[str, dict[str, Param]] = {
    "Patient": {**NAMES, "birthdate": ("date", "birthDate"), "gender": ("token", "gender")},
    "Practitioner": dict(NAMES),
    "PractitionerRole": {
        "practitioner": ("reference", "practitioner"),
        "organization": ("reference", "organization"),
        "specialty": ("token", "specialty"),
    },
    "Organization": {"name": ("string", "name"), "identifier": ("token", "identifier")},
    "Location": {"name": ("string", "name"), "identifier": ("token", "identifier")},
    "Appointment": {
        "status": ("token", "status"),
        "patient": ("reference", "participant.actor"),
        "actor": ("reference", "participant.actor"),
        "practitioner": ("reference", "participant.actor"),
        "date": ("date", "start"),
        "slot": ("reference", "slot"),
        "identifier": ("token", "identifier"),
    },
    "Slot": {
        "status": ("token", "status"),
        "schedule": ("reference", "schedule"),
        "start": ("date", "start"),
    },
    "Schedule": {"actor": ("reference", "actor"), "identifier": ("token", "identifier")},
    "Encounter": {
        **SUBJECT,
        "status": ("token", "status"),
        "class": ("token", "class"),
        "date": ("date", "period.start"),
        "identifier": ("token", "identifier"),
        "practitioner": ("reference", "participant.individual"),
    },
    "Observation": {
        **CLINICAL,
        "date": ("date", "effectiveDateTime"),
        "value-quantity": ("quantity", "valueQuantity"),
    },
    "DiagnosticReport": {**CLINICAL, "date": ("date", "effectiveDateTime")},
    "ServiceRequest": {
        **CLINICAL,
        "intent": ("token", "intent"),
        "authored": ("date", "authoredOn"),
    },
    "Condition": {**CLINICAL, "clinical-status": ("token", "clinicalStatus")},
    "AllergyIntolerance": {"patient": ("reference", "patient"), "code": ("token", "code")},
    "MedicationRequest": {**CLINICAL, "intent": ("token", "intent")},
    "Coverage": {
        "status": ("token", "status"),
        "beneficiary": ("reference", "beneficiary"),
        "patient": ("reference", "beneficiary"),
        "payor": ("reference", "payor"),
        "identifier": ("token", "identifier"),
    },
    "DocumentReference": {**CLINICAL, "type": ("token", "type")},
    "Task": {
        "status": ("token", "status"),
        "patient": ("reference", "for"),
        "code": ("token", "code"),
    },
}
GENERIC: dict[str, Param] = {
    "identifier": ("token", "identifier"),
    "status": ("token", "status"),
    **SUBJECT,
}
CONTROL = {"_count", "_sort"}  # shape the result, not the match


def known(resource_type: str) -> dict[str, Param]:
    return {**COMMON, **PARAMS.get(resource_type, GENERIC)}
