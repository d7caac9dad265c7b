"""Whole container-format task runs in one process: sandbox start, the oracle's exec, the verifier
phase, the reward files read, the sandbox stopped and removed.

Run `python bench/sandbox_tasks.py`; it prints one JSON object. The task's network is `public`
(each task run starts pasta for the agent's sandbox and again for the verifier's) except in the
`no_network` figure. A container runtime needs about a
second or more just to start a container; the goal here is tens of milliseconds per task run.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

SAMPLES = 20
TEST_SH = """#!/bin/bash
grep -qx done /app/state && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt
"""
SOLVE_SH = "#!/bin/bash\nmkdir -p /app && echo done > /app/state\n"
DOCKERFILE = "FROM debian:bookworm-slim\nWORKDIR /app\nRUN echo built > /app/image.txt\n"


def write_task(parent: Path, name: str, dockerfile: str | None, network: str = "public") -> Path:
    root = parent / name
    for folder in ("tests", "solution", "environment"):
        (root / folder).mkdir(parents=True)
    (root / "instruction.md").write_text("Write done to /app/state.\n")
    (root / "task.toml").write_text(
        "[agent]\ntimeout_sec = 30\n[verifier]\ntimeout_sec = 30\n"
        f'[environment]\nnetwork_mode = "{network}"\n'
    )
    for path, text in (("tests/test.sh", TEST_SH), ("solution/solve.sh", SOLVE_SH)):
        (root / path).write_text(text)
        (root / path).chmod(0o755)
    if dockerfile:
        (root / "environment" / "Dockerfile").write_text(dockerfile)
    return root


def task_run_ms(task_dir: Path, agent: str) -> dict[str, float]:
    from assay.runs import open_benchmark
    from assay.runs.handle import run_task
    from assay.runs.plan import new_id
    from assay.taskrun.agents.resolve import agent_factory

    benchmark = open_benchmark(task_dir)
    (task,) = benchmark.tasks.values()
    made = agent_factory(agent)
    run_task(benchmark, task, made(task), run_id=new_id("tr"), agent_name=agent)  # warm, builds
    times = []
    for _ in range(SAMPLES):
        started = time.perf_counter()
        result = run_task(benchmark, task, made(task), run_id=new_id("tr"), agent_name=agent)
        times.append((time.perf_counter() - started) * 1000)
        assert result.outcome == ("verified" if agent == "reference" else "not_achieved"), result
    return {"median_ms": round(statistics.median(times), 1), "max_ms": round(max(times), 1)}


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        os.environ.setdefault("ASSAY_HOME", str(Path(folder) / "home"))
        os.chmod(folder, 0o711)  # sandbox homes may be made below it
        plain = write_task(Path(folder), "plain", None)
        built = write_task(Path(folder), "built", DOCKERFILE)
        offline = write_task(Path(folder), "offline", None, network="no-network")
        figures = {
            "task_run_oracle": task_run_ms(plain, "reference"),
            "task_run_noop": task_run_ms(plain, "noop"),
            "task_run_oracle_cached_layer": task_run_ms(built, "reference"),
            "task_run_oracle_no_network": task_run_ms(offline, "reference"),
            "samples": SAMPLES,
            "python": sys.version.split()[0],
        }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
