"""How long trust costs: validating the example world, checking its baselines, the static proof,
and the proof of names `assay run` runs once per world load.

Prints one JSON object. Run with `.venv/bin/python bench/validate.py`.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from pathlib import Path

WORLD = Path(__file__).resolve().parents[1] / "worlds" / "shop"
ROUNDS = 5


def timed(action, rounds: int = ROUNDS) -> float:
    """The median wall time of `action`, in seconds, after one warm-up call."""
    action()
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    os.environ["ASSAY_HOME"] = tempfile.mkdtemp(prefix="assay-bench-")
    from assay.runs import open_benchmark
    from assay.trust.baseline import check_baselines
    from assay.trust.static import static_proof
    from assay.trust.validate import open_for_validation, validate_world
    from assay.world import loadable

    report = validate_world(WORLD)
    tasks = len(report.tasks)
    runs = sum(3 + len(task.proofs["wrong"].notes) for task in report.tasks)
    validate_s = timed(lambda: validate_world(WORLD))
    baseline_s = timed(lambda: check_baselines(WORLD))
    benchmark, _ = open_for_validation(WORLD)
    world = benchmark.world

    def static_all() -> None:
        for task in world.tasks.values():
            static_proof(task, None, benchmark.verifiers, world.snapshot.columns)

    static_s = timed(static_all, rounds=20)

    # What `assay run` pays for the proof of names: once per process and world, never per task run.
    def first_proof() -> None:
        loadable._proved.clear()
        loadable.prove_gradable(world, benchmark.verifiers)

    names_s = timed(first_proof, rounds=20)
    reload_s = timed(lambda: open_benchmark(WORLD).close())
    print(
        json.dumps(
            {
                "world": "shop",
                "tasks": tasks,
                "validate_task_runs": runs,
                "validate_world_s": round(validate_s, 4),
                "validate_task_runs_per_s": round(runs / validate_s, 1),
                "baseline_check_s": round(baseline_s, 4),
                "static_proof_per_task_ms": round(static_s / tasks * 1000, 3),
                "run_names_proof_ms": round(names_s * 1000, 3),
                "run_reload_s": round(reload_s, 4),
            }
        )
    )


if __name__ == "__main__":
    main()
