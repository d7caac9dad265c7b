"""Run a task's checks: dispatch on the check's kind; an unknown kind fails as unsupported."""

from __future__ import annotations

from assay.spec.checks import (
    AnswerCheck,
    FhirResourceStateCheck,
    OtherCheck,
    PortalStateMatchCheck,
    PythonCheck,
    ScriptCheck,
    SqlCheck,
    VoiceTranscriptCheck,
)
from assay.verify.answer import run_answer_check
from assay.verify.context import VerifyContext
from assay.verify.model import CheckRun
from assay.verify.python import Verifiers, run_python_check
from assay.verify.script import run_script_check
from assay.verify.sql import run_sql_check


def run_checks(context: VerifyContext, verifiers: Verifiers) -> list[CheckRun]:
    """Every check of the task, in order. CheckError means scoring itself failed."""
    runs: list[CheckRun] = []
    for check in context.task.checks:
        if isinstance(check, SqlCheck):
            runs.append(run_sql_check(check, context))
        elif isinstance(check, AnswerCheck):
            runs.append(run_answer_check(check, context))
        elif isinstance(check, PythonCheck):
            runs.append(run_python_check(check, context, verifiers))
        elif isinstance(check, ScriptCheck):
            runs.append(run_script_check(check, context))
        elif isinstance(check, FhirResourceStateCheck):
            from assay.verify.healthcare.fhir import run_fhir_check  # FHIR libraries load lazily

            runs.append(run_fhir_check(check, context))
        elif isinstance(check, PortalStateMatchCheck):
            from assay.verify.healthcare.portal import run_portal_check

            runs.append(run_portal_check(check, context))
        elif isinstance(check, VoiceTranscriptCheck):
            from assay.verify.healthcare.voice import run_voice_check

            runs.append(run_voice_check(check, context))
        else:
            runs.append(unsupported(check))
    return runs


def unsupported(check: OtherCheck) -> CheckRun:
    return CheckRun(
        name=check.name,
        type=check.type,
        kind=check.kind,
        weight=check.weight,
        axis=check.axis,
        passed=False,
        score=0.0,
        details=f"unsupported assertion {check.kind!r}",
        evidence=None,
    )
