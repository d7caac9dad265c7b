"""The v1 flow: benchmark runs, their task runs and those task runs' criterion runs."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from assay.api import criterion_runs
from assay.api.dependencies import AnyKey, Anyone
from assay.api.lane import model_response
from assay.served import benchmark_runs, task_runs
from assay.served.context import Context
from assay.served.errors import ErrorBody
from assay.served.wire import (
    Act,
    BenchmarkRunOut,
    CheckRunOut,
    CheckRunPage,
    Complete,
    Completion,
    CreateRun,
    RejectedBody,
    RunCreated,
    TaskRunOut,
)
from assay.taskrun.observation import Observation

router = APIRouter(prefix="/v1")


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {status: {"model": ErrorBody} for status in (401, *statuses, 413)}


UNKNOWN = errors(404)
UNKNOWN_OR_CONFLICT = errors(404, 409)  # no such run, or one in no state for the request


def _context(request: Request) -> Context:
    context: Context = request.app.state.context
    return context


@router.get("/health", include_in_schema=False)
async def health() -> dict[str, str]:
    """Open to anyone: answered once the server, its listeners included, has started."""
    return {"status": "ok"}


@router.post(
    "/benchmark-runs",
    status_code=201,
    response_model=RunCreated,
    responses=errors(400, 403, 404, 422),
)
async def create_benchmark_run(request: Request, body: CreateRun, who: AnyKey) -> Response:
    """Plan a benchmark run of a served world; returns its bearer token and task-run URLs."""
    created = benchmark_runs.create_run(_context(request), who, body)
    return model_response(created, status=201)


@router.get("/benchmark-runs/{run_id}", response_model=BenchmarkRunOut, responses=UNKNOWN)
async def get_benchmark_run(request: Request, run_id: str, who: Anyone) -> BenchmarkRunOut:
    """The run, its task runs, and its aggregate once every task run has finished."""
    return benchmark_runs.view_run(_context(request), who, run_id)


@router.post(
    "/benchmark-runs/{run_id}/cancel", response_model=BenchmarkRunOut, responses=UNKNOWN_OR_CONFLICT
)
async def cancel_benchmark_run(request: Request, run_id: str, who: Anyone) -> BenchmarkRunOut:
    """Cancel the unfinished task runs; finished ones are kept."""
    return benchmark_runs.cancel_run(_context(request), who, run_id)


@router.post(
    "/task-runs/{task_run_id}/start",
    response_model=Observation,
    response_model_exclude_none=True,
    responses=UNKNOWN_OR_CONFLICT,
)
async def start_task_run(request: Request, task_run_id: str, who: Anyone) -> Response:
    """Reset the world for this task run; the first observation."""
    observation = task_runs.start(_context(request), who, task_run_id)
    return model_response(observation, exclude_none=True)


@router.post(
    "/task-runs/{task_run_id}/act",
    response_model=Observation,
    response_model_exclude_none=True,
    responses={**errors(400, 404, 409), 422: {"model": RejectedBody}},
)
async def act(request: Request, task_run_id: str, body: Act, who: Anyone) -> Response:
    """One action (`call` or `say`); the next observation."""
    observation = task_runs.act(_context(request), who, task_run_id, body)
    return model_response(observation, exclude_none=True)


@router.post(
    "/task-runs/{task_run_id}/complete",
    response_model=Completion,
    responses=errors(400, 404, 409, 422),
)
async def complete_task_run(
    request: Request, task_run_id: str, body: Complete, who: Anyone
) -> Response:
    """Finish with the final output and grade the world now."""
    return model_response(task_runs.complete(_context(request), who, task_run_id, body.output))


@router.post(
    "/task-runs/{task_run_id}/cancel", response_model=TaskRunOut, responses=UNKNOWN_OR_CONFLICT
)
async def cancel_task_run(request: Request, task_run_id: str, who: Anyone) -> TaskRunOut:
    """End the task run as cancelled; it does not count in the run's aggregate."""
    return task_runs.cancel_task_run(_context(request), who, task_run_id)


@router.get("/task-runs/{task_run_id}", response_model=TaskRunOut, responses=UNKNOWN)
async def get_task_run(request: Request, task_run_id: str, who: Anyone) -> TaskRunOut:
    return task_runs.view_task_run(_context(request), who, task_run_id)


@router.get("/criterion-runs", response_model=CheckRunPage, responses=errors(404, 422))
async def list_criterion_runs(
    request: Request,
    who: Anyone,
    task_run_id: Annotated[str, Query(min_length=1)],
    cursor: str | None = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> CheckRunPage:
    """A task run's criterion runs, in order, a page at a time."""
    context = _context(request)
    return criterion_runs.list_criterion_runs(context, who, task_run_id, cursor, limit)


@router.get("/criterion-runs/{check_run_id}", response_model=CheckRunOut, responses=UNKNOWN)
async def get_criterion_run(request: Request, check_run_id: str, who: Anyone) -> CheckRunOut:
    """One criterion run; with the operator key, always with its details and evidence."""
    return criterion_runs.get_criterion_run(_context(request), who, check_run_id)
