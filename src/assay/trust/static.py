"""The static proof: a task loads and can be graded at all (`assay.world.loadable`, the proof
`assay run` refuses a world on, in the same words), before anything runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.errors import SpecError
from assay.formats.task import TaskSpec
from assay.trust.findings import Proof
from assay.verify.python import Verifiers
from assay.world.loadable import GradingFacts, grading_problems


def static_proof(
    task: TaskSpec | None,
    load_error: SpecError | None,
    verifiers: Verifiers,
    columns: Mapping[str, Sequence[str]],
    backend: str = "sqlite",
    services: Mapping[str, str] | None = None,
) -> Proof:
    """Every reason the task cannot be trusted before anything runs; passed when there is none."""
    if task is None:
        error = load_error or SpecError("", None, "the task did not load")
        return Proof.failed(_reason(error.field, error.message))
    facts = GradingFacts(columns, services or {}, frozenset(verifiers), backend)
    reasons = [_reason(field, problem) for field, problem in grading_problems(task, facts)]
    return Proof.failed(*reasons) if reasons else Proof.passed(warnings=judged_only(task))


def judged_only(task: TaskSpec) -> list[str]:
    """A task whose every goal is a judge check gets its verdict from a model alone: allowed, and
    said."""
    goals = [check for check in task.checks if check.type == "goal"]
    if goals and all(check.kind == "judge" for check in goals):
        return ["every goal is a judge check: a model alone decides whether the task is done"]
    return []


def _reason(field: str | None, problem: str) -> str:
    """A problem as `assay run` says it, less the file (the validation names it)."""
    return f"{field}: {problem}" if field else problem
