"""Rich output for the CLI: progress while running, then tables."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from assay.cli.output import print_plain, stdout_console
from assay.runs.headline import axis_text, readable_k, verdict_line
from assay.runs.run import BenchmarkOutcome, BenchmarkRunResult
from assay.score.result import TaskRunResult
from assay.verify.script import verifier_last_line

if TYPE_CHECKING:
    from assay.trust.withdrawn import TaskState

console = stdout_console()
errors = Console(stderr=True)

OUTCOME_STYLE = {
    "verified": "green",
    "not_achieved": "yellow",
    "rule_violated": "red",
    "not_scored": "magenta",
}


@contextmanager
def progress(total: int) -> Iterator[Callable[[Any], None]]:
    """A progress bar on stderr (when it is a terminal); yields the function to call once per
    finished task run."""
    if not errors.is_terminal:
        yield lambda _: None
        return
    bar = Progress(
        TextColumn("running"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=errors,
        transient=True,
    )
    with bar:
        job = bar.add_task("task runs", total=total)
        yield lambda _: bar.advance(job)


def print_outcome(
    outcome: BenchmarkOutcome,
    task_runs: Iterable[TaskRunResult] | None = None,
    fmt: str = "table",
) -> None:
    """The result table, one row per task run (`task_runs`, else the outcome's), and the figures;
    `fmt` plain: the rows alone, tab-separated."""
    run = outcome.benchmark_run
    title = f"{run.world}@{run.world_version} · agent {run.agent}"
    if run.scored_run:
        title += " · scored (check details withheld)"
    if run.verifier_mode == "separate":
        title += " · every task verified separately"
    table = Table(title=title, show_lines=False)
    for column in ("task", "outcome", "score", "verdict", "summary", "failed checks"):
        # the task and its outcome stay on one line; summaries and details wrap around them
        table.add_column(column, overflow="fold", no_wrap=column in ("task", "outcome"))
    for result in outcome.task_runs if task_runs is None else task_runs:
        name = result.task_id + (f" #{result.repeat}" if run.repeats > 1 else "")
        style = OUTCOME_STYLE[result.outcome]
        table.add_row(
            escape(name),
            f"[{style}]{result.outcome}[/]",
            "—" if result.score is None else f"{result.score:.2f}",
            result.verdict or "—",
            summary_text(result),
            escape(failures_text(result)),
        )
    if fmt == "plain":
        print_plain(table)
        return
    console.print(table)
    reward = "—" if run.mean_reward is None else f"{run.mean_reward:.3f}"
    counts = ", ".join(f"{name} {count}" for name, count in run.outcomes.items())
    console.print(f"{verdict_line(run)} · mean reward {reward} · {counts}")
    totals = run.summary
    console.print(
        f"false completions {totals.false_completion} · duplicate effects {totals.duplicate_effects}"
        f" · faults {totals.faults} (recovered {totals.recovered})"
        f" · unnecessary interruptions {totals.unnecessary_interruptions}"
        f" · rejected attempts {totals.rejected_attempts} · turns {totals.turns}"
        f" · verifier failures blamed on the agent {totals.verifier_failures_blamed_on_agent}"
    )
    if totals.model_calls:
        console.print(
            f"model calls {totals.model_calls} · tokens {totals.prompt_tokens} prompt + "
            f"{totals.completion_tokens} completion · model time {totals.model_latency_s:.1f} s"
        )
    for line in figures_lines(run):
        console.print(line)


def figures_lines(run: BenchmarkRunResult) -> list[str]:
    """pass@k and pass^k (a readable subset of k; JSON has every k), the interval, axes and splits,
    one line each where there is something."""
    lines = []
    shown = readable_k(run.pass_at_k)
    if shown:
        lines.append("pass@k " + " · ".join(f"{k}: {run.pass_at_k[k]:.3f}" for k in shown))
        lines.append("pass^k " + " · ".join(f"{k}: {run.pass_hat_k[k]:.3f}" for k in shown))
    if run.ci95 is not None:
        lines.append(f"95% interval of the score [{run.ci95[0]:.3f}, {run.ci95[1]:.3f}]")
    if run.axes:
        lines.append("axes " + " · ".join(f"{n} {axis_text(a)}" for n, a in run.axes.items()))
    if len(run.by_split) > 1:
        lines.append(
            "splits "
            + " · ".join(
                f"{name} {'—' if s.score is None else f'{s.score:.3f}'} ({s.scored} scored)"
                for name, s in run.by_split.items()
            )
        )
    return lines


def summary_text(result: TaskRunResult) -> str:
    summary = result.summary
    parts = [f"{summary.turns} turns", summary.termination]
    if summary.false_completion:
        parts.append("false completion")
    if summary.duplicate_effects:
        parts.append(f"{summary.duplicate_effects} duplicate")
    if summary.faults:
        parts.append(f"{summary.faults} fault" + (" recovered" if summary.recovered else ""))
    if summary.unnecessary_interruptions:
        parts.append(f"{summary.unnecessary_interruptions} interruptions")
    if summary.rejected_attempts:
        parts.append(f"{summary.rejected_attempts} rejected")
    return ", ".join(parts)


def failures_text(result: TaskRunResult) -> str:
    """Why the task run failed: its error or failed checks, then the test script's last line."""
    failed = [check for check in result.checks if not check.passed]
    # a verifier failure blamed on the agent is scored: its failed script check says why
    if result.error is not None and result.outcome == "not_scored":
        lines = [f"{result.error.side} failed: {result.error.message}"]
    else:
        lines = [f"✗ {c.name}" + (f": {c.details}" if c.details else "") for c in failed]
    last = [line for check in failed if (line := verifier_last_line(check))]
    return "\n".join(lines + [f"verifier: {line}" for line in last])


def print_sandbox_gaps() -> None:
    """On stderr, before the first task run: each guarantee this machine cannot give a sandbox
    (every task run records the same in its notes)."""
    from assay.world.container.confine import machine_gaps

    for gap in machine_gaps():
        errors.print(f"sandbox: {gap}", highlight=False, markup=False, soft_wrap=True)


def print_left_out(left_out: Sequence[TaskState]) -> None:
    """On stderr: the withdrawn tasks a run leaves out, and why."""
    if not left_out:
        return
    noun = "task" if len(left_out) == 1 else "tasks"
    heading = (
        f"left out {len(left_out)} withdrawn {noun} (the last validation failed; "
        "--include-withdrawn runs them):"
    )
    lines = [
        f"{state.task_id}: {state.reasons[0] if state.reasons else 'failed validation'}"
        for state in left_out
    ]
    _print_listed(heading, lines)


def print_changed(changed: Sequence[TaskState]) -> None:
    """On stderr: the tasks that run unvalidated because files changed since their validation."""
    if not changed:
        return
    noun = "task has" if len(changed) == 1 else "tasks have"
    heading = (
        f"{len(changed)} {noun} changed since the last validation and run unvalidated "
        "(`assay validate` proves them again):"
    )
    groups: dict[str, list[str]] = {}
    for state in changed:
        groups.setdefault(", ".join(state.changed), []).append(state.task_id)
    lines = [f"{files}: {', '.join(task_ids)}" for files, task_ids in groups.items()]
    # one line per group, whatever the width, so it can be read by tools too
    _print_listed(heading, lines, soft_wrap=True)


def _print_listed(heading: str, lines: Sequence[str], *, soft_wrap: bool = False) -> None:
    """On stderr, as written (no markup): a heading, then each line indented under it."""
    errors.print(heading, highlight=False, markup=False, soft_wrap=soft_wrap)
    for line in lines:
        errors.print(f"  {line}", highlight=False, markup=False, soft_wrap=soft_wrap)
