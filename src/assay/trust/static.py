"""The static proof: a task loads, names only what exists, and can be verified at all."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.errors import SpecError
from assay.formats.checks import PythonCheck
from assay.formats.load import missing_goal as spec_missing_goal
from assay.formats.task import TaskSpec
from assay.runs.benchmark import unknown_check_names
from assay.trust.findings import Proof
from assay.verify.python import Verifiers


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
        return Proof.failed(_reason(error))
    reasons = [
        *unknown_verifiers(task, verifiers),
        *unknown_sql_names(task, columns, backend, services),
        *missing_goal(task),
    ]
    return Proof.failed(*reasons) if reasons else Proof.passed(warnings=judged_only(task))


def judged_only(task: TaskSpec) -> list[str]:
    """A task whose every goal is a judge check gets its verdict from a model alone: allowed, and
    said."""
    goals = [check for check in task.checks if check.type == "goal"]
    if goals and all(check.kind == "judge" for check in goals):
        return ["every goal is a judge check: a model alone decides whether the task is done"]
    return []


def unknown_verifiers(task: TaskSpec, verifiers: Verifiers) -> list[str]:
    known = ", ".join(sorted(verifiers)) or "none registered"
    return [
        f"checks[{index}].verifier: unknown verifier {check.verifier!r} (known: {known})"
        for index, check in enumerate(task.checks)
        if isinstance(check, PythonCheck) and check.verifier not in verifiers
    ]


def unknown_sql_names(
    task: TaskSpec,
    columns: Mapping[str, Sequence[str]],
    backend: str = "sqlite",
    services: Mapping[str, str] | None = None,
) -> list[str]:
    """Each table or column a check's SQL names that the world's snapshot does not have, and each
    typed check whose service is missing or whose paths do not compile."""
    found = unknown_check_names(task, columns, backend, services)
    return [f"{field}: {problem}" for field, problem in found]


def missing_goal(task: TaskSpec) -> list[str]:
    """A task with no goal check can never be verified (a task built in code; a file is refused
    as it loads)."""
    problem = spec_missing_goal(task)
    return [] if problem is None else [f"checks: {problem}"]


def _reason(error: SpecError) -> str:
    return f"{error.field}: {error.message}" if error.field else error.message
