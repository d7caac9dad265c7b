"""A small agent that drives a whole benchmark over HTTP, knowing nothing of assay but its API.

It plays each task's reference solution, read from the world's task files, so that its results can
be set beside `assay run WORLD --agent reference`:

    assay serve --worlds worlds/shop &            # prints the operator key
    python examples/http_agent.py --url http://127.0.0.1:8000 --key aso_... --world worlds/shop

Only the standard library and httpx are used: any language with an HTTP client can do the same.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from pathlib import Path

import httpx


def solutions(world: Path) -> dict[str, list[dict]]:
    """The reference steps of every task, by task id."""
    found = {}
    for path in sorted((world / "tasks").glob("*.toml")):
        task = tomllib.loads(path.read_text(encoding="utf-8"))
        found[path.stem] = task.get("solution", {}).get("steps", [])
    return found


def play(http: httpx.Client, task_run: dict, steps: list[dict]) -> dict:
    """Start the task run, take the steps, complete it; the completion."""
    observation = http.post(task_run["start_url"]).json()
    output = ""
    for step in steps:
        if observation["done"]:
            break
        if "finish" in step:
            output = step["finish"]
            break
        if "say" in step:
            action = {"say": step["say"]}
        else:
            action = {"call": {"tool": step["call"], "args": step.get("args", {})}}
        answer = http.post(task_run["act_url"], json=action)
        if answer.status_code not in (200, 422):  # 422: a rejected call, which still counts
            answer.raise_for_status()
        observation = answer.json().get("observation", answer.json())
    return http.post(task_run["complete_url"], json={"output": output}).json()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--key", required=True, help="the operator key `assay serve` printed")
    parser.add_argument("--world", type=Path, required=True, help="the world's directory")
    parser.add_argument("--benchmark", help="world@version (default: the world's name)")
    parser.add_argument("--json", action="store_true", help="print the run as JSON")
    options = parser.parse_args()

    steps = solutions(options.world)
    benchmark = (
        options.benchmark or tomllib.loads((options.world / "world.toml").read_text())["name"]
    )
    operator = httpx.Client(
        base_url=options.url, headers={"Authorization": f"Bearer {options.key}"}
    )
    created = operator.post(
        "/v1/benchmark-runs", json={"benchmark": benchmark, "agent": "http-example"}
    )
    created.raise_for_status()
    run = created.json()
    http = httpx.Client(
        base_url=options.url, headers={"Authorization": f"Bearer {run['bearer_token']}"}, timeout=60
    )
    completions = [
        play(http, task_run, steps[task_run["task_id"]]) for task_run in run["task_runs"]
    ]
    whole = http.get(f"/v1/benchmark-runs/{run['benchmark_run_id']}").json()
    if options.json:
        print(json.dumps({"benchmark_run": whole, "completions": completions}))
    else:
        for task_run, done in zip(run["task_runs"], completions, strict=True):
            print(f"{task_run['task_id']:32} {done['outcome']:14} {done['score']:.2f}")
        aggregate = whole["aggregate"]
        print(f"score {aggregate['score']:.3f} ({aggregate['verdict']}) · {aggregate['outcomes']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
