"""What `assay run` prints and saves, read back from the store a page at a time: a run of any
size is never all in memory, and `--json` writes one task run after another."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.runs.run import BenchmarkOutcome
    from assay.runs.store import Store
    from assay.score.result import TaskRunResult


def each_shown(records: Store, outcome: BenchmarkOutcome) -> Iterator[TaskRunResult]:
    """The run's task runs with their trajectories, redacted when the run is scored."""
    scored = outcome.benchmark_run.scored_run
    for result in records.each_result(outcome.benchmark_run.id, trajectories_too=True):
        yield result.redacted() if scored else result


def report(records: Store, outcome: BenchmarkOutcome, fmt: str) -> None:
    """The run as one JSON object on one line, as tab-separated rows, or as the result table and
    the store it is in."""
    if fmt == "json":
        write_json(records, outcome)
        return
    from assay.cli.render import console, errors, print_outcome

    print_outcome(outcome, each_shown(records, outcome), fmt)
    where = f"benchmark run {outcome.benchmark_run.id} is in {records.location.shown}"
    if fmt == "table":
        console.print(where)
    else:  # plain stdout holds rows alone; the run id still reaches the user
        errors.print(where, highlight=False, markup=False, soft_wrap=True)


def write_json(records: Store, outcome: BenchmarkOutcome) -> None:
    """`{"benchmark_run": …, "task_runs": […]}`, written one task run at a time."""
    head = json.dumps({"benchmark_run": outcome.benchmark_run.model_dump(mode="json")})
    out = sys.stdout
    out.write(head[:-1] + ', "task_runs": [')
    run_id = outcome.benchmark_run.id
    shown = (
        (json.dumps(result.as_json(trajectory=True)) for result in each_shown(records, outcome))
        if outcome.benchmark_run.scored_run  # redacted through the model
        else records.each_result_text(run_id)
    )
    for index, text in enumerate(shown):
        out.write((", " if index else "") + text)
    out.write("]}\n")
    out.flush()


def save(records: Store, run_id: str, directory: Path) -> int:
    """One JSON trajectory file per finished task run of the run in `directory`; how many."""
    directory.mkdir(parents=True, exist_ok=True)
    written = 0
    for result in records.each_result(run_id, trajectories_too=True):
        record = {
            "task_run_id": result.id,
            "task_id": result.task_id,
            "repeat": result.repeat,
            "agent": result.agent,
            "trajectory": result.trajectory,
        }
        path = directory / f"{result.task_id}-{result.repeat}-{result.id}.json"
        path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        written += 1
    return written
