"""Run a task's checks: dispatch on the check's kind (an unknown kind never loads)."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

from assay.spec.checks import PythonCheck
from assay.verify.context import VerifyContext
from assay.verify.model import CheckRun
from assay.verify.python import Verifiers, run_python_check

# kind → (module, function) of its runner; imported on first use, so a world that has no FHIR
# check never loads the FHIR libraries.
RUNNERS: dict[str, tuple[str, str]] = {
    "sql": ("assay.verify.sql", "run_sql_check"),
    "answer": ("assay.verify.answer", "run_answer_check"),
    "script": ("assay.verify.script", "run_script_check"),
    "judge": ("assay.verify.judge", "run_judge_check"),
    "fhir-resource-state": ("assay.verify.healthcare.fhir", "run_fhir_check"),
    "hl7-structural": ("assay.verify.healthcare.hl7", "run_hl7_check"),
    "portal-state-match": ("assay.verify.healthcare.portal", "run_portal_check"),
    "sftp-file-present": ("assay.verify.healthcare.files", "run_files_check"),
    "voice-transcript": ("assay.verify.healthcare.voice", "run_voice_check"),
    "x12-response": ("assay.verify.healthcare.x12", "run_x12_check"),
}
_loaded: dict[str, Callable[[Any, VerifyContext], CheckRun]] = {}


def run_checks(context: VerifyContext, verifiers: Verifiers) -> list[CheckRun]:
    """Every check of the task, in order. CheckError means scoring itself failed."""
    runs: list[CheckRun] = []
    for check in context.task.checks:
        if isinstance(check, PythonCheck):
            runs.append(run_python_check(check, context, verifiers))
        else:
            runs.append(runner(check.kind)(check, context))
    return runs


def runner(kind: str) -> Callable[[Any, VerifyContext], CheckRun]:
    found = _loaded.get(kind)
    if found is None:
        module, name = RUNNERS[kind]
        found = _loaded[kind] = getattr(import_module(module), name)
    return found
