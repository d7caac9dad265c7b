"""How much sooner a slow model agent's benchmark finishes with task runs in flight at once.

Run `python bench/agents_concurrency.py`; it prints one JSON object. A local OpenAI-compatible
stand-in (tests/modelkit.py) answers every request after `LATENCY_S`, playing each task's reference
solution; the same 32 task runs of worlds/shop go through `assay run --agent model:…` in process,
once with `--concurrency 1` and once with `--concurrency 8`.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

LATENCY_S = 0.2
REPEATS = 2


def run(url: str, concurrency: int) -> tuple[float, list[tuple[str, int, str]]]:
    from assay.provider import ModelOptions
    from assay.runs import open_benchmark, prepare, run_benchmark
    from assay.runs.execute import SerialExecutor
    from assay.settings import RunSettings, install

    install(RunSettings(model=ModelOptions(base_url=url, retries=0)))
    benchmark = open_benchmark(ROOT / "worlds" / "shop")
    planned = prepare(benchmark, "model:bench", (), ("train", "dev"), REPEATS)
    started = time.perf_counter()
    outcome = run_benchmark(
        benchmark, "model:bench", planned, executor=SerialExecutor(concurrency=concurrency)
    )
    elapsed = time.perf_counter() - started
    found = sorted((r.task_id, r.repeat, r.outcome) for r in outcome.task_runs)
    return elapsed, found


def main() -> None:
    from modelkit import ScriptedModel, StandIn, solution_replies

    from assay.runs import open_benchmark

    shop = open_benchmark(ROOT / "worlds" / "shop")
    scripts = {t.customer.request: solution_replies(t) for t in shop.tasks.values() if t.solution}
    with StandIn(ScriptedModel(scripts), latency_s=LATENCY_S) as server:
        serial_s, serial = run(server.url, 1)
        overlapped_s, overlapped = run(server.url, 8)
        calls = len(server.bodies)
    print(
        json.dumps(
            {
                "task_runs": len(serial),
                "model_calls": calls,
                "latency_s": LATENCY_S,
                "concurrency_1_s": round(serial_s, 2),
                "concurrency_8_s": round(overlapped_s, 2),
                "speedup": round(serial_s / overlapped_s, 2),
                "identical_outcomes": serial == overlapped,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
