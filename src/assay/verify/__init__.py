"""Check kinds, dispatched on `assert`; each returns score, passed, details and evidence."""

from assay.verify.answer import numbers_in, states_number
from assay.verify.check_run import CheckRun
from assay.verify.context import VerifyContext
from assay.verify.python import (
    CheckResult,
    Verifier,
    VerifierContext,
    Verifiers,
    check,
    collect_verifiers,
    optional,
    verifier,
)
from assay.verify.run import run_checks
from assay.verify.views import ReadView

__all__ = [
    "CheckResult",
    "CheckRun",
    "ReadView",
    "Verifier",
    "VerifierContext",
    "Verifiers",
    "VerifyContext",
    "check",
    "collect_verifiers",
    "numbers_in",
    "optional",
    "run_checks",
    "states_number",
    "verifier",
]
