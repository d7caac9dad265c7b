"""Which task runs a run's page lists: filters by outcome, split, task, axis, broken rule and text,
read from a query string so that a link carries them; one clear message for a bad one."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from assay.errors import UsageError
from assay.report.pages import RunPage, failures, grid
from assay.score.result import TaskRunResult
from assay.score.task import OUTCOMES


@dataclass(frozen=True)
class TaskRunFilters:
    """Each filter given narrows the list; text ones match case-insensitively, in part.

    rule: the name of a rule check that failed (`any` for every task run that broke one);
    text: found in the task's id or title, the final output, or a check's name or details."""

    outcome: str = ""
    split: str = ""
    task: str = ""
    axis: str = ""
    rule: str = ""
    text: str = ""

    @property
    def active(self) -> bool:
        return any(getattr(self, field.name) for field in fields(self))

    def keeps(self, result: TaskRunResult) -> bool:
        checks = result.checks
        broken = [c.name.lower() for c in checks if c.type == "rule" and not c.passed]
        words = [result.task_id, result.title, result.output]
        words += [text for check in checks for text in (check.name, check.details or "")]
        return (
            (not self.outcome or result.outcome == self.outcome)
            and (not self.split or result.split == self.split)
            and (not self.task or self.task.lower() in result.task_id.lower())
            and (not self.axis or self.axis in result.axes)
            and (not self.rule or _broke(broken, self.rule.lower()))
            and (not self.text or self.text.lower() in "\n".join(words).lower())
        )


def task_run_filters(**given: str | None) -> TaskRunFilters:
    """The filters as given in a query string, checked; UsageError naming the parameter."""
    values = {name: (text or "").strip() for name, text in given.items()}
    if values.get("outcome") and values["outcome"] not in OUTCOMES:
        choices = ", ".join(OUTCOMES)
        raise UsageError(f"outcome: {values['outcome']!r} is not one of {choices}")
    return TaskRunFilters(**values)


def selected(page: RunPage, filters: TaskRunFilters) -> RunPage:
    """The page with only the task runs the filters keep; the run's figures stay the whole run's."""
    if not filters.active:
        return page
    kept = [result for result in page.task_runs if filters.keeps(result)]
    return replace(page, task_runs=kept, grid=grid(kept), failures=failures(kept))


def _broke(broken: list[str], wanted: str) -> bool:
    return bool(broken) if wanted == "any" else any(wanted in name for name in broken)
