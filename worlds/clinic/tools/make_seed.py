"""Write the clinic's FHIR seed files, deterministically (no randomness): run it to regenerate
data/fhir/*.json after changing the tables below."""

from __future__ import annotations

import json
from pathlib import Path

MRN = "http://genhosp.example/mrn"
DATA = Path(__file__).resolve().parent.parent / "data" / "fhir"

PATIENTS = [  # id, family, given, gender, birth date, MRN
    ("john-smith", "Smith", "John", "male", "1961-04-12", "MRN0001"),
    ("maria-garcia", "Garcia", "Maria", "female", "1985-09-23", "MRN0002"),
    ("chidi-okafor", "Okafor", "Chidi", "male", "1977-05-14", "MRN0003"),
    ("aiko-tanaka", "Tanaka", "Aiko", "female", "1992-01-30", "MRN0004"),
    ("liam-obrien", "O'Brien", "Liam", "male", "1958-11-02", "MRN0005"),
    ("fatima-khan", "Khan", "Fatima", "female", "1969-07-19", "MRN0006"),
    ("noah-weber", "Weber", "Noah", "male", "2001-03-08", "MRN0007"),
    ("sofia-rossi", "Rossi", "Sofia", "female", "1974-12-25", "MRN0008"),
    ("ethan-brown", "Brown", "Ethan", "male", "1989-06-11", "MRN0009"),
    ("amara-diallo", "Diallo", "Amara", "female", "1996-10-05", "MRN0010"),
    ("lucas-martin", "Martin", "Lucas", "male", "1950-02-17", "MRN0011"),
    ("mei-chen", "Chen", "Mei", "female", "1981-08-29", "MRN0012"),
]
PRACTITIONERS = [
    ("rivera", "Rivera", "Ana"),
    ("patel", "Patel", "Raj"),
    ("kowalski", "Kowalski", "Eva"),
    ("nguyen", "Nguyen", "Minh"),
]


def patient(ident: str, family: str, given: str, gender: str, born: str, mrn: str) -> dict:
    return {
        "resourceType": "Patient",
        "id": ident,
        "identifier": [{"system": MRN, "value": mrn}],
        "name": [{"family": family, "given": [given]}],
        "gender": gender,
        "birthDate": born,
        "telecom": [{"system": "phone", "value": f"+1-212-555-01{mrn[-2:]}"}],
    }


def practitioners() -> list[dict]:
    found = []
    for ident, family, given in PRACTITIONERS:
        found.append(
            {
                "resourceType": "Practitioner",
                "id": ident,
                "name": [{"family": family, "given": [given], "prefix": ["Dr."]}],
            }
        )
        found.append(
            {
                "resourceType": "PractitionerRole",
                "id": f"{ident}-role",
                "practitioner": {"reference": f"Practitioner/{ident}"},
                "organization": {"reference": "Organization/genhosp"},
            }
        )
    return found


def places() -> list[dict]:
    found = [{"resourceType": "Organization", "id": "genhosp", "name": "General Hospital"}]
    for ident, name in (
        ("er", "Emergency Room"),
        ("clinic", "Outpatient Clinic"),
        ("lab", "Laboratory"),
    ):
        found.append(
            {
                "resourceType": "Location",
                "id": ident,
                "name": name,
                "managingOrganization": {"reference": "Organization/genhosp"},
            }
        )
    return found


def schedules() -> list[dict]:
    found = []
    for doctor in ("rivera", "patel"):
        found.append(
            {
                "resourceType": "Schedule",
                "id": f"{doctor}-schedule",
                "actor": [{"reference": f"Practitioner/{doctor}"}],
            }
        )
    slots = [  # id, doctor, start (the clock starts Monday 2026-03-02), status
        ("rivera-wed", "rivera", "2026-03-04T10:00:00Z", "free"),
        ("rivera-thu-early", "rivera", "2026-03-05T09:00:00Z", "busy"),
        ("rivera-thu", "rivera", "2026-03-05T10:00:00Z", "free"),
        ("rivera-fri", "rivera", "2026-03-06T10:00:00Z", "free"),
        ("patel-tue", "patel", "2026-03-03T14:00:00Z", "busy"),
        ("patel-thu", "patel", "2026-03-05T14:00:00Z", "free"),
    ]
    for ident, doctor, start, status in slots:
        end = start.replace(":00:00Z", ":30:00Z")
        found.append(
            {
                "resourceType": "Slot",
                "id": ident,
                "schedule": {"reference": f"Schedule/{doctor}-schedule"},
                "status": status,
                "start": start,
                "end": end,
            }
        )
    return found


def appointments() -> list[dict]:
    booked = [
        ("appt-okafor", "chidi-okafor", "rivera", "rivera-thu-early", "2026-03-05T09:00:00Z"),
        ("appt-tanaka", "aiko-tanaka", "patel", "patel-tue", "2026-03-03T14:00:00Z"),
        ("appt-khan", "fatima-khan", "patel", None, "2026-03-10T11:00:00Z"),
    ]
    found = []
    for ident, who, doctor, slot, start in booked:
        appointment = {
            "resourceType": "Appointment",
            "id": ident,
            "status": "booked",
            "start": start,
            "end": start.replace(":00:00Z", ":30:00Z"),
            "participant": [
                {"actor": {"reference": f"Patient/{who}"}, "status": "accepted"},
                {
                    "actor": {
                        "reference": f"Practitioner/{doctor}",
                        "display": f"Dr. {doctor.title()}",
                    },
                    "status": "accepted",
                },
            ],
        }
        if slot:
            appointment["slot"] = [{"reference": f"Slot/{slot}"}]
        found.append(appointment)
    return found


def encounters() -> list[dict]:
    found = []
    for number, (who, status, klass) in enumerate(
        [
            ("john-smith", "finished", "AMB"),
            ("maria-garcia", "in-progress", "IMP"),
            ("chidi-okafor", "finished", "AMB"),
            ("liam-obrien", "in-progress", "IMP"),
            ("noah-weber", "arrived", "EMER"),
            ("sofia-rossi", "finished", "AMB"),
            ("lucas-martin", "in-progress", "IMP"),
            ("mei-chen", "finished", "AMB"),
        ],
        start=1,
    ):
        found.append(
            {
                "resourceType": "Encounter",
                "id": f"enc-{number:02d}",
                "status": status,
                "class": {
                    "system": "http://terminology.hl7.org/CodeSystem/v3-ActCode",
                    "code": klass,
                },
                "subject": {"reference": f"Patient/{who}"},
                "period": {"start": f"2026-03-0{1 + number % 2}T08:00:00Z"},
            }
        )
    return found


def results() -> list[dict]:
    found = []
    labs = [
        ("2345-7", "Glucose", 182, "mg/dL"),
        ("2160-0", "Creatinine", 1.1, "mg/dL"),
        ("718-7", "Hemoglobin", 13.5, "g/dL"),
        ("6690-2", "Leukocytes", 7.2, "10*3/uL"),
        ("2951-2", "Sodium", 139, "mmol/L"),
    ]
    for number, (code, name, value, unit) in enumerate(labs, start=1):
        who = PATIENTS[number][0]
        found.append(
            {
                "resourceType": "Observation",
                "id": f"obs-{number:02d}",
                "status": "final",
                "category": [
                    {
                        "coding": [
                            {
                                "system": "http://terminology.hl7.org/CodeSystem/observation-category",
                                "code": "laboratory",
                            }
                        ]
                    }
                ],
                "code": {"coding": [{"system": "http://loinc.org", "code": code, "display": name}]},
                "subject": {"reference": f"Patient/{who}"},
                "effectiveDateTime": "2026-03-01T07:30:00Z",
                "valueQuantity": {"value": value, "unit": unit},
            }
        )
        found.append(
            {
                "resourceType": "DiagnosticReport",
                "id": f"report-{number:02d}",
                "status": "final",
                "code": {"coding": [{"system": "http://loinc.org", "code": code, "display": name}]},
                "subject": {"reference": f"Patient/{who}"},
                "result": [{"reference": f"Observation/obs-{number:02d}"}],
            }
        )
    return found


def orders() -> list[dict]:
    found = []
    for number, (who, code, name) in enumerate(
        [
            ("maria-garcia", "24323-8", "Comprehensive metabolic panel"),
            ("liam-obrien", "58410-2", "Complete blood count"),
            ("lucas-martin", "24323-8", "Comprehensive metabolic panel"),
            ("noah-weber", "2345-7", "Glucose"),
        ],
        start=1,
    ):
        found.append(
            {
                "resourceType": "ServiceRequest",
                "id": f"order-{number:02d}",
                "status": "active",
                "intent": "order",
                "code": {"coding": [{"system": "http://loinc.org", "code": code, "display": name}]},
                "subject": {"reference": f"Patient/{who}"},
            }
        )
    return found


def main() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    files = {
        "patients": [patient(*row) for row in PATIENTS],
        "coverage": [
            {
                "resourceType": "Coverage",
                "id": f"coverage-{who}",
                "status": "active",
                "beneficiary": {"reference": f"Patient/{who}"},
                "payor": [{"display": "Acme Health Plan"}],
                "subscriberId": member,
            }
            for who, member in (("chidi-okafor", "W123456789"), ("maria-garcia", "W555000111"))
        ],
        "practitioners": practitioners(),
        "places": places(),
        "schedules": schedules(),
        "appointments": appointments(),
        "encounters": encounters(),
        "results": results(),
        "orders": orders(),
    }
    for name, resources in files.items():
        bundle = {
            "resourceType": "Bundle",
            "type": "collection",
            "entry": [{"resource": r} for r in resources],
        }
        (DATA / f"{name}.json").write_text(json.dumps(bundle, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
