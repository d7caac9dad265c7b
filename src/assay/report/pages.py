"""What a run's page shows, put together once from a stored run: figures, the task × repeat grid,
failed checks, task runs with trajectories, and charts. The report file and the viewer share it."""

from __future__ import annotations

from dataclasses import dataclass

from assay.report.charts import axes_chart, pass_k_chart
from assay.runs.record import load_outcome
from assay.runs.run import BenchmarkOutcome, BenchmarkRunResult
from assay.runs.store import Store
from assay.score.result import TaskRunResult
from assay.verify.check_run import CheckRun


@dataclass(frozen=True)
class GridRow:
    """One task: its title and its task runs by repeat (None where none has finished)."""

    task_id: str
    title: str
    cells: list[TaskRunResult | None]


@dataclass(frozen=True)
class Failure:
    """A failed check of a task run, or (check None) a task run that could not be scored."""

    result: TaskRunResult
    check: CheckRun | None


@dataclass(frozen=True)
class RunPage:
    run: BenchmarkRunResult
    task_runs: list[TaskRunResult]
    grid: list[GridRow]
    repeats: list[int]
    failures: list[Failure]
    charts: dict[str, str]  # name → an <svg> element


def load_run_page(store: Store, run_id: str, *, reveal: bool = False) -> RunPage:
    """The page of a stored run (an id or the start of one); a scored run is redacted unless revealed."""
    return run_page(load_outcome(store, run_id, trajectories=True, reveal=reveal))


def run_page(outcome: BenchmarkOutcome) -> RunPage:
    run, results = outcome.benchmark_run, outcome.task_runs
    return RunPage(
        run=run,
        task_runs=results,
        grid=grid(results),
        repeats=list(range(max([run.repeats, *(r.repeat + 1 for r in results)]))),
        failures=failures(results),
        charts=charts(run),
    )


def grid(results: list[TaskRunResult]) -> list[GridRow]:
    """Tasks in the order their first task run appears, each with its task runs by repeat."""
    rows: dict[str, GridRow] = {}
    for result in results:
        row = rows.setdefault(result.task_id, GridRow(result.task_id, result.title, []))
        missing = result.repeat + 1 - len(row.cells)
        row.cells.extend([None] * max(missing, 0))
        row.cells[result.repeat] = result
    return list(rows.values())


def failures(results: list[TaskRunResult]) -> list[Failure]:
    """Every failed check, and every task run an error kept from being scored, in run order."""
    found: list[Failure] = []
    for result in results:
        # a verifier failure blamed on the agent is scored: its failed script check says why
        if result.error is not None and result.outcome == "not_scored":
            found.append(Failure(result, None))
        found.extend(Failure(result, check) for check in result.checks if not check.passed)
    return found


def charts(run: BenchmarkRunResult) -> dict[str, str]:
    """The run's charts by name; only those with something to draw."""
    drawn: dict[str, str] = {}
    if run.pass_at_k:
        drawn["pass_k"] = pass_k_chart(run.pass_at_k, run.pass_hat_k, f"{run.id}-pass")
    if run.axes:
        # an axis of rules only has no score to draw: its table row says the rules held
        scores = {name: axis.score for name, axis in run.axes.items() if axis.score is not None}
        if scores:
            drawn["axes"] = axes_chart(scores, f"{run.id}-axes")
    return drawn
