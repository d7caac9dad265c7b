"""Rich output for `assay compare`: the per-task table, then the paired test in one line."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from assay.cli.output import print_plain
from assay.cli.render import console
from assay.report.comparison import RunComparison
from assay.runs.compare import TaskFigures

CHANGE_STYLE = {
    "regressed": "red",
    "improved": "green",
    "unchanged": "dim",
    "only_a": "magenta",
    "only_b": "magenta",
}


def print_comparison(compared: RunComparison, fmt: str = "table") -> None:
    a, b, comparison = compared.a, compared.b, compared.comparison
    title = f"B {b.id} ({escape(b.agent)}) against A {a.id} ({escape(a.agent)}) · {a.world}"
    table = Table(title=title)
    for column in (
        "task",
        "change",
        "pass rate A",
        "pass rate B",
        "Δ pass rate",
        "score A",
        "score B",
        "Δ score",
    ):
        table.add_column(column, no_wrap=column == "task")
    for task in comparison.tasks:
        style = CHANGE_STYLE[task.change]
        table.add_row(
            escape(task.task_id),
            f"[{style}]{task.change}[/]",
            _rate(task.a),
            _rate(task.b),
            _signed(task.pass_rate_change),
            _score(task.a),
            _score(task.b),
            _signed(task.score_change),
        )
    if fmt == "plain":
        print_plain(table)
        return
    console.print(table)
    console.print(f"score A {_value(a.score)} · score B {_value(b.score)}")
    console.print(test_line(compared))


def test_line(compared: RunComparison) -> str:
    """The paired test's result, or why there is none."""
    comparison = compared.comparison
    test = comparison.test
    if test is None:
        return "paired test: needs at least two tasks scored in both runs"
    low, high = test.ci95
    verdict = (
        "significant regression"
        if comparison.regression
        else "significant improvement"
        if comparison.improvement
        else "no significant change"
    )
    return (
        f"mean score difference B − A {test.mean_difference:+.3f} over {test.tasks} tasks · "
        f"95% interval [{low:+.3f}, {high:+.3f}] · p = {test.p_value:.4f} · {verdict} "
        f"(paired bootstrap, {test.resamples} resamples, α = {comparison.alpha})"
    )


def _rate(figures: TaskFigures | None) -> str:
    return "—" if figures is None else f"{figures.verified}/{figures.scored}"


def _score(figures: TaskFigures | None) -> str:
    return "—" if figures is None else f"{figures.mean_score:.3f}"


def _signed(value: float | None) -> str:
    return "—" if value is None else f"{value:+.3f}"


def _value(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"
