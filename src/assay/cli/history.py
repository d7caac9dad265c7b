"""Rich output for stored runs: the list of runs, one run's state, one task's check runs."""

from __future__ import annotations

import json
from collections.abc import Sequence

from rich.markup import escape
from rich.table import Table

from assay.cli.output import print_plain
from assay.cli.render import OUTCOME_STYLE, console, summary_text
from assay.runs.run import BenchmarkOutcome
from assay.runs.store import RunRecord
from assay.score.result import TaskRunResult

HIDDEN = "hidden: this run is scored (--reveal shows it)"


def print_runs(records: Sequence[RunRecord], fmt: str = "table") -> None:
    if not records and fmt == "table":
        console.print("no benchmark runs yet")
        return
    table = Table(title="benchmark runs, newest first")
    table.add_column("run", no_wrap=True)
    for column in ("world", "agent", "phase", "task runs", "score", "verdict", "created"):
        table.add_column(column, overflow="fold")
    for record in records:
        table.add_row(
            record.id,
            f"{record.world}@{record.world_version}",
            escape(record.agent),
            record.phase if record.status in (record.phase, "active") else record.status,
            f"{record.finished}/{record.task_runs}",
            "—" if record.score is None else f"{record.score:.3f}",
            record.verdict or "—",
            record.created_at[:16].replace("T", " "),
        )
    if fmt == "plain":
        print_plain(table)
        return
    console.print(table)


def print_state(outcome: BenchmarkOutcome) -> None:
    """One line on where the run stands, above its table."""
    run = outcome.benchmark_run
    done = run.scored + run.not_scored
    marks = " · scored" if run.scored_run else ""
    if run.verifier_mode == "separate":
        marks += " · every task verified separately"
    console.print(
        f"run {run.id} · {run.phase} ({run.status}) · {done}/{run.task_runs} task runs finished"
        f" · started {run.started_at or '—'} · finished {run.finished_at or '—'}{marks}"
    )


def print_checks(outcome: BenchmarkOutcome) -> None:
    """Each task run of one task: its outcome, then every check run with details and evidence."""
    hidden = outcome.benchmark_run.scored_run
    for result in outcome.task_runs:
        style = OUTCOME_STYLE[result.outcome]
        score = "—" if result.score is None else f"{result.score:.2f}"
        console.print(
            f"[bold]{escape(result.task_id)} #{result.repeat}[/] ({result.id}) "
            f"[{style}]{result.outcome}[/] · score {score} · {escape(summary_text(result))}"
        )
        if result.error is not None:
            console.print(f"  {result.error.side} failed: {escape(result.error.message)}")
        for check in result.checks:
            mark = "[green]✓[/]" if check.passed else "[red]✗[/]"
            about = [check.type, check.axis or "no axis", f"weight {check.weight:g}"]
            console.print(
                f"  {mark} {escape(check.name)} ({' · '.join(about)} · score {check.score:.2f})"
            )
            if hidden and check.details is None and check.evidence is None:
                console.print(f"      {HIDDEN}")
                continue
            if check.details:
                console.print(f"      {escape(check.details)}")
            if check.evidence is not None:
                evidence = json.dumps(check.evidence, default=str, ensure_ascii=False)
                console.print(f"      evidence {escape(evidence)}", soft_wrap=True)
        for line in changes_lines(result):
            console.print(f"  {escape(line)}", soft_wrap=True)


def changes_lines(result: TaskRunResult) -> list[str]:
    """What the task run changed, a line per table, then its service requests in one line."""
    changes = result.changes
    if changes is None:
        return []
    lines = [
        f"changed {table.table}: {len(table.added)} added · {len(table.changed)} changed · "
        f"{len(table.removed)} removed" + (f" · {table.left_out} more" if table.left_out else "")
        for table in changes.tables
    ] or ["changed no row"]
    if changes.requests:
        asked = ", ".join(f"{r.service}.{r.operation} {r.status}" for r in changes.requests)
        more = f" and {changes.requests_left_out} more" if changes.requests_left_out else ""
        lines.append(f"requests {asked}{more}")
    return lines
