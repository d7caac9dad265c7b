"""`assay run`: a benchmark run of a world with one agent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from assay.cli.options import JsonOption, SplitOption, TaskOption, WorldArgument


def run(
    world: WorldArgument,
    agent: Annotated[
        str,
        typer.Option(help="noop, reference, wrong:<name>, replay:<file> or module:Class."),
    ] = "reference",
    task: TaskOption = None,
    split: SplitOption = None,
    repeats: Annotated[int, typer.Option(min=1, help="Task runs per task.")] = 1,
    as_json: JsonOption = False,
    fail_under: Annotated[
        float | None, typer.Option(help="Exit 1 when the run's score is below this.")
    ] = None,
    save_trajectories: Annotated[
        Path | None, typer.Option(help="Write one JSON trajectory file per task run here.")
    ] = None,
) -> None:
    """Run every chosen task with one agent and print the result table."""
    from assay.cli.render import print_outcome, progress
    from assay.runs import open_benchmark, prepare, run_benchmark

    benchmark = open_benchmark(world)
    planned = prepare(benchmark, agent, task or (), split or ("train", "dev"), repeats)
    with progress(len(planned), enabled=not as_json) as advance:
        outcome = run_benchmark(benchmark, agent, planned, repeats=repeats, on_result=advance)
    if save_trajectories is not None:
        save(outcome.task_runs, save_trajectories)
    if as_json:
        typer.echo(json.dumps(outcome.as_json()))
    else:
        print_outcome(outcome)
    if outcome.benchmark_run.phase == "cancelled":
        raise typer.Exit(130)
    score = outcome.benchmark_run.score
    if fail_under is not None and (score is None or score < fail_under):
        raise typer.Exit(1)


def save(task_runs: list, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for result in task_runs:
        record = {
            "task_run_id": result.id,
            "task_id": result.task_id,
            "repeat": result.repeat,
            "agent": result.agent,
            "trajectory": result.trajectory,
        }
        path = directory / f"{result.task_id}-{result.repeat}-{result.id}.json"
        path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
