"""Rich output for validation, task standings and baselines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich import box
from rich.markup import escape
from rich.table import Table

from assay.cli.output import print_plain
from assay.cli.render import console
from assay.trust.findings import PROOFS, Proof, TaskValidation, WorldValidation

if TYPE_CHECKING:
    from assay.trust.baseline import BaselineReport
    from assay.trust.withdrawn import TaskState

HEADINGS = {
    "static": "static",
    "noop": "no-op fails",
    "reference": "reference passes",
    "wrong": "wrong fail",
    "replay": "replay same",
    "live": "live",
}
STANDING_STYLE = {"validated": "green", "withdrawn": "red", "unvalidated": "yellow"}


def print_validation(report: WorldValidation, fmt: str = "table") -> None:
    title = f"{report.world}@{report.version} · validation"
    table = Table(title=title, box=box.SIMPLE_HEAD)
    table.add_column("task", overflow="fold", min_width=12)
    table.add_column("split", min_width=5)
    for name in PROOFS:
        words = HEADINGS[name].split()
        width = max(len(word) for word in [*words, "skipped" if name == "live" else ""])
        table.add_column("\n".join(words), justify="center", min_width=width)
    for task in report.tasks:
        table.add_row(
            escape(task.task_id), task.split or "—", *(_cell(task.proofs[name]) for name in PROOFS)
        )
    if fmt == "plain":
        print_plain(table)
        return
    console.print(table)
    for task in report.tasks:
        _print_findings(task)
    failed = [task.task_id for task in report.tasks if not task.passed]
    total = len(report.tasks)
    if failed:
        console.print(
            f"[red]{len(failed)} of {total} tasks failed a proof[/] and are withdrawn from runs: "
            + ", ".join(failed)
        )
    else:
        console.print(f"[green]{total} of {total} tasks passed every proof[/]")


def _cell(proof: Proof) -> str:
    if proof.status == "skipped":
        return "[dim]skipped[/]"
    mark = "[green]✓[/]" if proof.status == "passed" else "[red]✗[/]"
    return mark + (" [yellow]![/]" if proof.warnings else "")


def _print_findings(task: TaskValidation) -> None:
    for name in PROOFS:
        proof = task.proofs[name]
        where = f"{escape(task.task_id)} · {HEADINGS[name]}"
        if proof.status == "failed":
            style = "yellow" if name == "live" else "red"
            for reason in proof.reasons:
                console.print(f"[{style}]✗[/] {where}: {escape(reason)}")
        for warning in proof.warnings:
            console.print(f"[yellow]![/] {where}: {escape(warning)}")
        if name in ("noop", "live"):
            for note in proof.notes:
                console.print(f"[dim]·[/] {where}: {escape(note)}")


def print_states(world: str, states: Sequence[TaskState], fmt: str = "table") -> None:
    table = Table(title=f"{world} · tasks by their last validation")
    for column in ("task", "split", "standing", "validated at", "why"):
        table.add_column(column, overflow="fold")
    for state in states:
        style = STANDING_STYLE[state.standing]
        table.add_row(
            state.task_id,
            state.split or "—",
            f"[{style}]{state.standing}[/]",
            state.validated_at or "—",
            escape("\n".join(_why(state))),
        )
    if fmt == "plain":
        print_plain(table)
        return
    console.print(table)
    counts = {name: sum(state.standing == name for state in states) for name in STANDING_STYLE}
    console.print(", ".join(f"{name} {count}" for name, count in counts.items()))


def _why(state: TaskState) -> list[str]:
    if state.changed:
        return [f"changed since validated: {', '.join(state.changed)}"]
    return state.reasons


def print_baseline_report(report: BaselineReport) -> None:
    if report.unchanged:
        console.print(
            f"[green]{len(report.tasks)} baselines unchanged[/] ({report.world}@{report.version})"
        )
        return
    task_ids = list(dict.fromkeys(change.task_id for change in report.changes))
    for task_id in task_ids:
        console.print(f"[bold]{escape(task_id)}[/]")
        for change in report.changes:
            if change.task_id == task_id:
                run = f"{escape(change.run)} · " if change.run else ""
                console.print(f"  [red]✗[/] {run}{escape(change.change)}")
    console.print(
        f"[red]{len(report.changes)} changes[/] in {len(task_ids)} tasks "
        f"({report.world}@{report.version}); `assay baseline record` accepts them"
    )
