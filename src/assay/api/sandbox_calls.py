"""The service surfaces of a benchmark run (`/v1/benchmark-runs/{id}/fhir`, `/portal`, `/voice`):
each request is one call on the run's started task run, made exactly as `POST …/act` makes it."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse

from assay.served.auth import Caller
from assay.served.context import Context
from assay.served.errors import ApiError, ErrorBody
from assay.served.task_runs import act
from assay.served.wire import Act
from assay.taskrun.observation import Event

# What a service surface may answer besides its result: documented for the OpenAPI document.
SERVICE_RESPONSES: dict[int | str, dict[str, Any]] = {
    **{status: {"model": ErrorBody} for status in (400, 401, 404, 409, 413, 422, 503)},
    202: {"description": "a held write: not carried out yet, with the message saying why"},
}


def started_task_run(context: Context, caller: Caller, run_id: str) -> str:
    """The id of the run's one started task run; 409 when none is, or more than one."""
    context.record(caller, run_id)  # 404 unless the caller may see the run
    started = context.progress.started(run_id)
    if not started:
        raise ApiError(
            409, "no_started_task_run", f"benchmark run {run_id} has no started task run"
        )
    if len(started) > 1:
        raise ApiError(
            409,
            "several_started_task_runs",
            f"benchmark run {run_id} has {len(started)} started task runs; a service surface acts "
            "on one at a time: complete the others first",
        )
    return started[0]


def call_on_started(
    context: Context, caller: Caller, run_id: str, tool: str, args: dict[str, Any]
) -> Event:
    """Act `{"call": {tool, args}}` on the started task run; its tool_result event. A refused call
    raises the 422 that `/act` raises; a task run that has ended is a 409."""
    return call_in_world(context, caller, run_id, tool, args)[0]


def call_in_world(
    context: Context, caller: Caller, run_id: str, tool: str, args: dict[str, Any]
) -> tuple[Event, Any]:
    """`call_on_started`, and the live world the call was made in (for what a surface reads of
    a service after it answered, such as whether a FHIR write created its resource)."""
    task_run_id = started_task_run(context, caller, run_id)
    observation = act(
        context, caller, task_run_id, Act.model_validate({"call": {"tool": tool, "args": args}})
    )
    results = [event for event in observation.events if event.type == "tool_result"]
    if not results:
        raise ApiError(409, "ended", f"task run {task_run_id} ended before the call was answered")
    flying = context.flying.get(task_run_id)
    return results[0], flying.session.live if flying is not None else None


def answer_call(
    statuses: dict[str, int],
    request: Request,
    who: Caller,
    run_id: str,
    tool: str,
    args: dict[str, Any],
) -> JSONResponse:
    """A surface's route: the call on the run's started task run, answered by `event_response`
    with the statuses its error codes map to. On the event loop's thread, as every route of the
    API: sessions are not shared across threads."""
    event = call_on_started(request.app.state.context, who, run_id, tool, args)
    return event_response(event, statuses)


def event_response(event: Event, statuses: dict[str, int] | None = None) -> JSONResponse:
    """A service surface's answer: the result (200); a business error with the status its code
    maps to (else 422); a held write (202); a fault, failed or of unknown outcome (503), with the
    operation id to retry it by."""
    if event.status == "OK":
        return JSONResponse(event.result)
    if event.status == "ERROR":
        code = event.code or "error"
        status = (statuses or {}).get(code, 422)
        return JSONResponse({"error": {"code": code, "message": event.message}}, status_code=status)
    detail = {"message": event.message, "operation_id": event.operation_id}
    if event.status == "HELD":
        return JSONResponse({"held": True, **detail}, status_code=202)
    code = "unknown_outcome" if event.status == "UNKNOWN" else "failed"
    return JSONResponse({"error": {"code": code, **detail}}, status_code=503)
