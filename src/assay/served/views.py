"""Results as the API shows them; a scored run's check runs carry no details or evidence."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assay.score.result import TaskRunResult
from assay.served.wire import CheckRunOut, Completion
from assay.verify.check_run import CheckRun


def check_out(
    check: CheckRun | dict[str, Any], *, id: str | None, task_run_id: str, hide: bool
) -> CheckRunOut:
    """A check run (or its stored JSON) as a criterion run, redacted when `hide`."""
    data = check.as_json() if isinstance(check, CheckRun) else check
    out = CheckRunOut.model_validate({**data, "id": id, "task_run_id": task_run_id})
    return out.redacted() if hide else out


def completion(result: TaskRunResult, check_ids: Sequence[str | None], *, hide: bool) -> Completion:
    ids = list(check_ids) or [None] * len(result.checks)
    return Completion(
        task_run_id=result.id,
        phase="completed",
        status=result.status,
        outcome=result.outcome,
        reward=result.reward,
        score=result.score,
        verdict=result.verdict,
        axes=result.axes,
        summary=result.summary,
        checks=[
            check_out(check, id=check_id, task_run_id=result.id, hide=hide)
            for check, check_id in zip(result.checks, ids, strict=True)
        ],
        error=None if result.error is None else result.error.model_dump(),
    )
