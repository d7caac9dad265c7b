"""FHIR server figures over ~200 resources, in one process: median search latency per parameter
kind and create latency through the tool path (validation, FHIRPath, the reserved tables); and on
worlds/clinic, a paged search (a page of `_count` from `_offset`, with its links).

Run `python bench/fhir_server.py`; it prints one JSON object. (Not `bench/fhir.py`: as the
script's directory leads sys.path, that name would hide the `fhir` package of fhir.resources.)
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

SAMPLES = 100
WORLD = """
name = "fhir-bench"
version = "1"
clock = "2026-03-02T09:00:00Z"

[database]
schema = "schema.sql"

[services.ehr]
kind = "fhir"
seed = ["data/*.json"]
"""


def median_ms(call, samples: int = SAMPLES) -> float:
    times = []
    for _ in range(samples):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 3)


def resources() -> list[dict]:
    """40 Patients and 160 heart-rate Observations, four per Patient."""
    made = []
    for n in range(40):
        made.append(
            {
                "resourceType": "Patient",
                "id": f"p{n:03d}",
                "identifier": [{"system": "http://genhosp.example/mrn", "value": f"MRN{n:04d}"}],
                "name": [{"family": f"Family{n:03d}", "given": ["Alex"]}],
                "gender": ("male", "female")[n % 2],
                "birthDate": f"{1940 + n}-0{1 + n % 9}-1{n % 10}",
            }
        )
        for k in range(4):
            made.append(
                {
                    "resourceType": "Observation",
                    "id": f"o{n:03d}-{k}",
                    "status": "final",
                    "code": {"coding": [{"system": "http://loinc.org", "code": "8867-4"}]},
                    "subject": {"reference": f"Patient/p{n:03d}"},
                    "effectiveDateTime": f"2026-02-{10 + k}T09:00:00Z",
                    "valueQuantity": {"value": 60 + n % 30 + k, "unit": "/min"},
                }
            )
    return made


def clinic_figures() -> dict[str, float]:
    """Paged searches on worlds/clinic: the second page of its patients, and of its free slots."""
    from assay.runs import open_benchmark

    world = open_benchmark(Path(__file__).parents[1] / "worlds" / "clinic").world
    live = world.reset()
    search = world.tools["fhir_search"].fn
    pages = {
        "patients": ("Patient", {"_count": "5", "_offset": "5"}),
        "free_slots": ("Slot", {"status": "free", "_count": "2", "_offset": "2"}),
    }
    figures = {
        f"clinic_search_paged_{name}_ms": median_ms(lambda t=t, p=p: search(live, t, p))
        for name, (t, p) in pages.items()
    }
    live.close()
    return figures


def main() -> None:
    from assay.runs import open_benchmark

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "world.toml").write_text(WORLD)
        (root / "schema.sql").write_text("CREATE TABLE notes (id INTEGER PRIMARY KEY);\n")
        (root / "data").mkdir()
        bundle = {"resourceType": "Bundle", "type": "collection"}
        bundle["entry"] = [{"resource": r} for r in resources()]
        (root / "data" / "seed.json").write_text(json.dumps(bundle))
        world = open_benchmark(root).world
        live = world.reset()
        search = world.tools["fhir_search"].fn
        searches = {
            "token": ("Patient", {"identifier": "http://genhosp.example/mrn|MRN0007"}),
            "string": ("Patient", {"family": "family01"}),
            "reference_and_date": ("Observation", {"subject": "p007", "date": "ge2026-02-12"}),
            "token_and_quantity": ("Observation", {"code": "8867-4", "value-quantity": "gt85"}),
        }
        figures = {
            f"search_{name}_ms": median_ms(lambda t=t, p=p: search(live, t, p))
            for name, (t, p) in searches.items()
        }
        patient = {"resourceType": "Patient", "name": [{"family": "Bench"}], "gender": "other"}
        create = world.tools["fhir_create"].fn
        figures["create_ms"] = median_ms(lambda: create(live, dict(patient)))
        live.close()
    figures.update(clinic_figures())
    figures["resources"] = len(resources())
    figures["samples"] = SAMPLES
    figures["python"] = sys.version.split()[0]
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
