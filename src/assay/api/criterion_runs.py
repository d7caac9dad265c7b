"""Criterion runs: one check's result inside a task run, paged by task run or read by id."""

from __future__ import annotations

from assay.runs.store.progress import CheckRunRef
from assay.served.auth import Caller
from assay.served.context import Context
from assay.served.errors import ApiError, not_found
from assay.served.views import check_out
from assay.served.wire import CheckRunOut, CheckRunPage


def list_criterion_runs(
    context: Context, caller: Caller, task_run_id: str, cursor: str | None, limit: int
) -> CheckRunPage:
    ref = context.task_run(caller, task_run_id)
    after = _position(cursor)
    found = context.progress.check_runs(ref.id, after, limit + 1)
    hide = context.hides(caller, ref.benchmark_run_id, ref.task_id)
    page = found[:limit]
    return CheckRunPage(
        data=[_out(check, hide) for check in page],
        next_cursor=str(page[-1].position) if len(found) > limit else None,
    )


def get_criterion_run(context: Context, caller: Caller, check_run_id: str) -> CheckRunOut:
    """Full evidence for the admin; others see none for a scored run or a holdout task."""
    check = context.progress.check_run(check_run_id)
    if check is None or not context.may_see(caller, check.benchmark_run_id):
        raise not_found("criterion run", check_run_id)
    ref = context.task_run(caller, check.task_run_id)
    return _out(check, context.hides(caller, check.benchmark_run_id, ref.task_id))


def _out(check: CheckRunRef, hide: bool) -> CheckRunOut:
    return check_out(check.data, id=check.id, task_run_id=check.task_run_id, hide=hide)


def _position(cursor: str | None) -> int:
    if cursor is None:
        return -1
    if not cursor.isdigit():
        raise ApiError(422, "invalid_request", f"cursor: {cursor!r} is not a cursor this API gave")
    return int(cursor)
