"""What it costs to run a Python class agent in a process of its own, and in its sandbox.

Run `python bench/agents.py`; it prints one JSON object: task runs per second of the same five
actions played by the reference agent (in-process), by a Python class handed over as an object
(in-process, as the Python API still allows) and by that class as `--agent file.py:Class` (its own
process, JSON over pipes: in its sandbox where the machine gives one, and as a bare process); the
round trip of one action; the start of an agent's process, both ways and with a model endpoint's
proxy; and what the sandbox adds
per task run and per `assay run` (its start, with the one check of whether bwrap works here).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from taskruns import write_world

AGENT = """
STEPS = [
    {"call": {"tool": "get_item", "args": {"item_id": 1}}},
    {"call": {"tool": "rename_item", "args": {"item_id": 1, "name": "one"}}},
    {"call": {"tool": "get_item", "args": {"item_id": 2}}},
    {"call": {"tool": "rename_item", "args": {"item_id": 2, "name": "two"}}},
    {"call": {"tool": "notify", "args": {"to": "me@example.com", "body": "renamed"}}},
    {"finish": "I renamed both."},
]


class FiveSteps:
    def act(self, observation):
        return STEPS[observation.turn]
"""

ROUNDS = 1000


def task_runs_per_s(benchmark, make) -> dict[str, float]:
    from assay.runs import run_task

    task = benchmark.tasks["five"]
    for _ in range(50):  # warm caches (statement parsing, pydantic validators)
        run_task(benchmark, task, make(task), run_id="warm")
    started = time.perf_counter()
    for index in range(ROUNDS):
        result = run_task(benchmark, task, make(task), run_id=f"tr{index}")
    elapsed = time.perf_counter() - started
    assert result.outcome == "verified", (result.outcome, result.error)
    return {
        "task_runs_per_s": round(ROUNDS / elapsed, 1),
        "ms_per_task_run": round(elapsed / ROUNDS * 1000, 3),
    }


def start_seconds(spec: str, *, probe: bool = False) -> float:
    """The median of 5 starts; `probe`: with the check of whether bwrap works here, as each
    `assay run` makes it once."""
    from assay.taskrun.agents import agent_factory, close_agents, sandbox

    timings = []
    for _ in range(5):
        if probe:
            sandbox.unavailable.cache_clear()
        started = time.perf_counter()
        factory = agent_factory(spec)
        timings.append(time.perf_counter() - started)
        close_agents(factory)
    return round(statistics.median(timings), 3)


def unsandboxed(measure):
    """`measure()` with the agent as a bare process, as on a machine without bwrap."""
    from assay.taskrun.agents import sandbox

    kept = sandbox.unavailable
    sandbox.unavailable = lambda: "measured without"  # type: ignore[assignment]
    try:
        return measure()
    finally:
        sandbox.unavailable = kept


def with_endpoint(measure):
    """`measure()` with a model endpoint named, as `--agent-endpoint` does: a proxy each start."""
    from assay.settings import RunSettings, using

    with using(RunSettings(agent_endpoints=("http://127.0.0.1:9/v1",))):
        return measure()


def main() -> None:
    import importlib.util

    from assay.runs import open_benchmark
    from assay.taskrun.agents import agent_factory, close_agents

    with tempfile.TemporaryDirectory() as scratch:
        os.environ["ASSAY_HOME"] = str(Path(scratch) / "home")
        benchmark = open_benchmark(write_world(Path(scratch) / "small", 0.01))
        agent_file = Path(scratch) / "five_steps.py"
        agent_file.write_text(AGENT)
        spec = importlib.util.spec_from_file_location("five_steps", agent_file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)

        agent = f"{agent_file}:FiveSteps"
        isolated = agent_factory(agent)
        bare = unsandboxed(lambda: agent_factory(agent))
        figures = {
            "reference_in_process": task_runs_per_s(benchmark, agent_factory("reference")),
            "class_in_process": task_runs_per_s(benchmark, lambda task: module.FiveSteps()),
            "agent_isolation": isolated.isolation,
            "class_own_process": task_runs_per_s(benchmark, isolated),
            "class_bare_process": task_runs_per_s(benchmark, bare),
            "agent_process_start_s": start_seconds(agent),
            "agent_process_start_with_probe_s": start_seconds(agent, probe=True),
            "bare_process_start_s": unsandboxed(lambda: start_seconds(agent)),
            "agent_process_start_with_endpoint_s": with_endpoint(lambda: start_seconds(agent)),
        }
        close_agents(isolated)
        close_agents(bare)
    own = figures["class_own_process"]["ms_per_task_run"]
    inside = figures["class_in_process"]["ms_per_task_run"]
    figures["ms_per_action_round_trip"] = round((own - inside) / 6, 3)  # six actions a task run
    bare_ms = figures["class_bare_process"]["ms_per_task_run"]
    figures["sandbox_ms_per_task_run"] = round(own - bare_ms, 3)
    start = figures["agent_process_start_with_probe_s"] - figures["bare_process_start_s"]
    figures["sandbox_s_per_assay_run"] = round(start, 3)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
