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
    scored: Annotated[
        bool,
        typer.Option(
            "--scored",
            help="Show outcome, reward, score, verdict and axes but no check details or evidence "
            "(always so for holdout tasks).",
        ),
    ] = False,
    include_withdrawn: Annotated[
        bool,
        typer.Option("--include-withdrawn", help="Also run tasks whose last validation failed."),
    ] = False,
) -> None:
    """Run every chosen task with one agent and print the result table."""
    from assay.cli.render import print_left_out, print_outcome, progress
    from assay.runs import open_benchmark, prepare, run_benchmark
    from assay.trust.withdrawn import withdrawn_chosen

    benchmark = open_benchmark(world)
    splits = split or ("train", "dev")
    left_out = [] if include_withdrawn else withdrawn_chosen(benchmark.world, task or (), splits)
    leave_out = {state.task_id for state in left_out}
    planned = prepare(benchmark, agent, task or (), splits, repeats, leave_out=leave_out)
    print_left_out(left_out)
    with progress(len(planned), enabled=not as_json) as advance:
        outcome = run_benchmark(
            benchmark, agent, planned, repeats=repeats, on_result=advance, scored=scored
        )
    if save_trajectories is not None:
        save(outcome.task_runs, save_trajectories)
    shown = outcome.redacted()
    if as_json:
        typer.echo(json.dumps(shown.as_json()))
    else:
        print_outcome(shown)
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
