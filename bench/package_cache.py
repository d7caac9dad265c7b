"""Task runs whose verifier installs what it needs, as published ones do, with the host's package
cache cold and then warm: the cookbook's hello-world verifier (`apt-get update`, `apt-get install
-y curl`, `uvx --with pytest==8.4.1 --with pytest-json-ctrf==0.3.5 pytest …`), the project's own
`examples/tasks/hello-world` (uvx only) with its build cached, and a Dockerfile's `RUN apt-get
install` of packages the cache holds.

Run `python bench/package_cache.py`; it prints one JSON object. Each figure starts with an empty
package cache (an ASSAY_HOME of its own), so its first task run or build pays the network and
builds the task's layer; set ASSAY_ROOTS to reuse a built base root. The goals: hello-world with its build cached ≤ 2 s, the cached build ≤ 5 s.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

SAMPLES = 5
EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "tasks"
COOKBOOK_TEST = """#!/bin/bash
apt-get update
apt-get install -y curl
curl -LsSf https://astral.sh/uv/0.9.7/install.sh | sh
source $HOME/.local/bin/env
uvx -p 3.13 --with pytest==8.4.1 --with pytest-json-ctrf==0.3.5 \\
  pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi
"""
TEST_OUTPUTS = (
    "from pathlib import Path\n\n\ndef test_hello():\n"
    "    assert Path('/app/hello.txt').read_text().strip() == 'Hello, world!'\n"
)
BUILD = (
    "FROM debian:bookworm-slim\n# sample {sample}\nRUN apt-get update && apt-get install -y curl\n"
)


def cookbook_task(parent: Path) -> Path:
    root = parent / "cookbook-hello"
    for folder in ("tests", "solution", "environment"):
        (root / folder).mkdir(parents=True)
    (root / "instruction.md").write_text("Write Hello, world! to /app/hello.txt.\n")
    (root / "task.toml").write_text("[agent]\ntimeout_sec = 60\n[verifier]\ntimeout_sec = 300\n")
    (root / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\nWORKDIR /app\n")
    (root / "tests" / "test_outputs.py").write_text(TEST_OUTPUTS)
    for path, text in (
        ("tests/test.sh", COOKBOOK_TEST),
        ("solution/solve.sh", "#!/bin/bash\necho 'Hello, world!' > /app/hello.txt\n"),
    ):
        (root / path).write_text(text)
        (root / path).chmod(0o755)
    return root


def task_runs_s(task_dir: Path, samples: int) -> dict[str, object]:
    """The first task run (cold cache, build included) and `samples` more, in seconds."""
    from assay.runs import open_benchmark
    from assay.runs.handle import run_task
    from assay.runs.plan import new_id
    from assay.taskrun.agents.resolve import agent_factory
    from assay.world.container.packages import recorded

    benchmark = open_benchmark(task_dir)
    (task,) = benchmark.tasks.values()
    made = agent_factory("reference")
    times, outcomes = [], []
    for _ in range(samples + 1):
        mark = len(recorded())
        started = time.perf_counter()
        result = run_task(benchmark, task, made(task), run_id=new_id("tr"), agent_name="oracle")
        times.append(time.perf_counter() - started)
        assert result.outcome == "verified", result.error
        outcomes.append(Counter(event.outcome for event in recorded()[mark:]))
    cached = times[1:]
    return {
        "first_s": round(times[0], 2),
        "cached_median_s": round(statistics.median(cached), 2),
        "cached_max_s": round(max(cached), 2),
        "first_cache_answers": dict(outcomes[0]),
        "cached_cache_answers": dict(outcomes[-1]),
    }


def build_s(samples: int) -> dict[str, object]:
    """A Dockerfile's `RUN apt-get update && apt-get install -y curl`, built anew each time (a
    comment changes its key), the first with the cache cold."""
    from assay.world.container.build import cached_layer
    from assay.world.container.confine import default_base
    from assay.world.container.dockerfile import plan_build

    base = default_base()
    times = []
    with tempfile.TemporaryDirectory() as folder:
        for sample in range(samples + 1):
            dockerfile = Path(folder) / f"Dockerfile.{sample}"
            dockerfile.write_text(BUILD.format(sample=sample))
            plan = plan_build(dockerfile, Path(folder))
            started = time.perf_counter()
            cached_layer(plan, f"bench-{os.getpid()}-{sample}", base=base, timeout_s=600)
            times.append(time.perf_counter() - started)
    return {
        "first_s": round(times[0], 2),
        "cached_median_s": round(statistics.median(times[1:]), 2),
        "cached_max_s": round(max(times[1:]), 2),
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        os.chmod(folder, 0o711)  # sandbox homes may be made below it
        measured = {
            "cookbook_hello_world": lambda: task_runs_s(cookbook_task(Path(folder)), SAMPLES),
            "examples_hello_world": lambda: task_runs_s(EXAMPLES / "hello-world", SAMPLES),
            "build_apt_get_install_curl": lambda: build_s(SAMPLES),
        }
        figures: dict[str, object] = {}
        for name, measure in measured.items():
            os.environ["ASSAY_HOME"] = str(Path(folder) / name)  # an empty package cache
            figures[name] = measure()
        figures.update(samples=SAMPLES, cpus=os.cpu_count(), python=sys.version.split()[0])
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
