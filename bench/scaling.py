"""Task runs per second by CPUs: the process pool against Ray, on 1, 2, 4, … CPUs.

Run `python bench/scaling.py` (needs `assay[ray]`); it prints one JSON object. Every round runs
the same task runs of worlds/shop (every task of train and dev, `--repeats` times, the reference
agent by default) through `ProcessExecutor(n)` and through `RayExecutor(n)` on a local Ray
instance given n CPUs. Two figures a round: `per_s`, task runs over the whole execute call
(starting the workers and loading the world in each included; Ray's own start is not), and
`steady_per_s`, task runs between the first result and the last, once every worker is up.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def counts(most: int) -> list[int]:
    """1, 2, 4, … up to `most`, and `most` itself."""
    found = [1]
    while found[-1] * 2 <= most:
        found.append(found[-1] * 2)
    return found if found[-1] == most else [*found, most]


def measure(benchmark, agent: str, planned, executor) -> dict[str, float]:
    from assay.runs import run_benchmark

    arrivals: list[float] = []
    started = time.perf_counter()
    outcome = run_benchmark(
        benchmark,
        agent,
        planned,
        executor=executor,
        on_result=lambda result: arrivals.append(time.perf_counter()),
    )
    elapsed = time.perf_counter() - started
    assert outcome.benchmark_run.phase == "completed"
    steady = arrivals[-1] - arrivals[0]
    return {
        "per_s": round(len(planned) / elapsed, 1),
        "steady_per_s": round((len(arrivals) - 1) / steady, 1) if steady > 0 else None,
        "wall_s": round(elapsed, 2),
    }


def with_pool(benchmark, agent: str, planned, cpus: int) -> dict[str, float]:
    from assay.runs import ProcessExecutor

    return {"cpus": cpus, **measure(benchmark, agent, planned, ProcessExecutor(cpus))}


def with_ray(benchmark, agent: str, planned, cpus: int) -> dict[str, float]:
    import ray

    from assay.runs.cluster import RayExecutor

    began = time.perf_counter()
    ray.init(
        "local",
        num_cpus=cpus,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.ERROR,
    )
    start_s = round(time.perf_counter() - began, 2)
    try:
        figures = measure(benchmark, agent, planned, RayExecutor(cpus))
    finally:
        ray.shutdown()
    return {"cpus": cpus, **figures, "ray_start_s": start_s}


def main() -> None:
    from assay.runs import open_benchmark, prepare

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=60, help="task runs per task (default 60)")
    parser.add_argument("--agent", default="reference", help="the agent (default: reference)")
    parser.add_argument(
        "--max-cpus", type=int, default=os.cpu_count() or 1, help="default: every core"
    )
    parser.add_argument("--executors", default="pool,ray", help="pool, ray or both (default)")
    args = parser.parse_args()

    benchmark = open_benchmark(ROOT / "worlds" / "shop")
    planned = prepare(benchmark, args.agent, (), ("train", "dev"), args.repeats)
    chosen = args.executors.split(",")
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name in chosen}
    for cpus in counts(args.max_cpus):
        if "pool" in chosen:
            rounds["pool"].append(with_pool(benchmark, args.agent, planned, cpus))
        if "ray" in chosen:
            rounds["ray"].append(with_ray(benchmark, args.agent, planned, cpus))
    print(
        json.dumps(
            {
                "machine": {"cores": os.cpu_count(), "python": platform.python_version()},
                "agent": args.agent,
                "task_runs": len(planned),
                **rounds,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
