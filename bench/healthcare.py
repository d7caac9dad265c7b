"""FHIR server and clinic figures, in one process: search and create latency through the tool path
(validation, the search parameters' FHIRPath, the tables), and whole clinic task runs.

Run `python bench/healthcare.py`; it prints one JSON object.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = 200


def median_ms(call, samples: int = SAMPLES) -> float:
    times = []
    for _ in range(samples):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 3)


def main() -> None:
    from assay.runs import open_benchmark, prepare, run_benchmark

    clinic = open_benchmark(ROOT / "worlds" / "clinic")
    world = clinic.world
    tools = world.tools
    live = world.reset()
    searches = {
        "search_token": ("Patient", {"identifier": "http://genhosp.example/mrn|MRN0007"}),
        "search_string": ("Patient", {"name": "ok"}),
        "search_reference_and_date": (
            "Slot",
            {"schedule": "Schedule/rivera-schedule", "start": "ge2026-03-05"},
        ),
    }
    figures = {
        name: median_ms(lambda t=t, p=p: tools["fhir_search"].fn(live, t, p))
        for name, (t, p) in searches.items()
    }
    patient = {"resourceType": "Patient", "name": [{"family": "Bench"}], "gender": "other"}
    figures["create"] = median_ms(lambda: tools["fhir_create"].fn(live, dict(patient)))
    figures["read"] = median_ms(lambda: tools["fhir_read"].fn(live, "Patient", "john-smith"))
    live.close()
    planned = prepare(clinic, "reference", (), ("train", "dev"), 20)
    started = time.perf_counter()
    run_benchmark(clinic, "reference", planned)
    figures["clinic_task_run_ms"] = round((time.perf_counter() - started) * 1000 / len(planned), 2)
    figures["clinic_task_runs"] = len(planned)
    figures["python"] = sys.version.split()[0]
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
