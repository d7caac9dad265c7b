"""OperationOutcomes (R4 operationoutcome.html): the one shape every FHIR error takes, and the HTTP
status and IssueType each refusal of the server maps to."""

from __future__ import annotations

from typing import Any

# refusal code → (HTTP status, R4 IssueType code)
ISSUES: dict[str, tuple[int, str]] = {
    "bad_request": (400, "invalid"),
    "invalid_arguments": (400, "invalid"),
    "structure": (400, "structure"),
    "too_deep": (400, "structure"),
    "unauthorized": (401, "login"),
    "not_allowed": (403, "forbidden"),
    "forbidden": (403, "forbidden"),
    "not_found": (404, "not-found"),
    "no_service": (404, "not-found"),
    "unknown_tool": (404, "not-supported"),
    "not_supported": (404, "not-supported"),
    "method_not_allowed": (405, "not-supported"),
    "not_acceptable": (406, "not-supported"),
    "conflict": (409, "conflict"),
    "gone": (410, "deleted"),
    "precondition_failed": (412, "conflict"),
    "payload_too_large": (413, "too-long"),
    "unsupported_media_type": (415, "not-supported"),
    "invalid": (422, "invalid"),
    "code_invalid": (422, "code-invalid"),
    "processing": (422, "processing"),
    "failed": (503, "transient"),
    "unknown_outcome": (503, "timeout"),
}
# what an HTTP status means when no refusal code says more
BY_STATUS = {400: "invalid", 401: "login", 403: "forbidden", 404: "not-found", 405: "not-supported"}


def issue_of(code: str, status: int | None = None) -> tuple[int, str]:
    """The HTTP status and IssueType of a refusal code; `status` where the code is not one known."""
    if code in ISSUES:
        return ISSUES[code]
    status = status or 422
    return status, BY_STATUS.get(status, "conflict" if status == 409 else "processing")


def operation_outcome(
    issue_type: str, diagnostics: str, severity: str = "error", **more: Any
) -> dict[str, Any]:
    """An OperationOutcome of one issue; `more` adds R4 issue elements (details, expression)."""
    issue = {"severity": severity, "code": issue_type, "diagnostics": diagnostics, **more}
    return {"resourceType": "OperationOutcome", "issue": [issue]}


def refusal(code: str, message: str, status: int | None = None) -> tuple[int, dict[str, Any]]:
    """The HTTP status and OperationOutcome of a refusal (`code` as the server or API names it)."""
    answer, issue_type = issue_of(code, status)
    return answer, operation_outcome(issue_type, message)


def informational(message: str) -> dict[str, Any]:
    return operation_outcome("informational", message, severity="information")
