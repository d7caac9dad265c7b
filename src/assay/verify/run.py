"""Run a task's checks: each by the runner its kind names (an unknown kind never loads)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assay.formats.checks import CheckBase, PythonCheck
from assay.registry import import_reference
from assay.verify.check_run import CheckRun
from assay.verify.context import VerifyContext
from assay.verify.python import Verifiers, run_python_check

# A kind's runner is imported on first use, so a world that has no FHIR check never loads the
# FHIR libraries.
_loaded: dict[type[CheckBase], Callable[[Any, VerifyContext], CheckRun]] = {}


def run_checks(context: VerifyContext, verifiers: Verifiers) -> list[CheckRun]:
    """Every check of the task, in order. CheckError means scoring itself failed."""
    runs: list[CheckRun] = []
    for check in context.task.checks:
        if isinstance(check, PythonCheck):
            runs.append(run_python_check(check, context, verifiers))
        else:
            runs.append(runner(type(check))(check, context))
    return runs


def runner(model: type[CheckBase]) -> Callable[[Any, VerifyContext], CheckRun]:
    """The function running checks of this model (its `runner`)."""
    found = _loaded.get(model)
    if found is None:
        found = _loaded[model] = import_reference(model.runner)
    return found
