"""The HTTP API: the v1 flow of benchmark runs, task runs and criterion runs, on FastAPI."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from importlib.util import find_spec
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from assay import __version__
from assay.api import criterion_runs
from assay.api.dependencies import AnyKey, Anyone
from assay.api.errors import install
from assay.api.lane import FastLane, model_response, rejected_response
from assay.api.limits import DEFAULT_MAX_BODY_BYTES, BodyLimit
from assay.api.routes_fhir import router as fhir_routes
from assay.api.routes_files import router as files_routes
from assay.api.routes_hl7 import router as hl7_routes
from assay.api.routes_keys import router as key_routes
from assay.api.routes_portal import router as portal_routes
from assay.api.routes_voice import router as voice_routes
from assay.api.routes_worlds import router as world_routes
from assay.api.routes_x12 import router as x12_routes
from assay.served import benchmark_runs, task_runs
from assay.served.context import Context
from assay.served.errors import ErrorBody, error_response
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


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {status: {"model": ErrorBody} for status in (401, *statuses, 413)}


class Api(FastAPI):
    """FastAPI with the fast lane (`assay.api.lane`) in front of all of it: its middleware, and the
    check on every request for a configured OpenTelemetry provider (FastAPI's native telemetry,
    which therefore does not see the lane's requests)."""

    def __init__(self, context: Context, max_body_bytes: int, **settings: Any):
        super().__init__(**settings)
        self.lane = FastLane(super().__call__, context, max_body_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.lane(scope, receive, send)


def create_app(context: Context, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> FastAPI:
    """The API over a context; a request body over `max_body_bytes` is 413 `payload_too_large`."""
    mcp = _mcp_mount(context)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            if mcp is not None:
                await stack.enter_async_context(mcp.lifespan(app))
            await context.start_listeners()
            stack.push_async_callback(context.stop_listeners)
            yield

    app = Api(
        context,
        max_body_bytes,
        lifespan=lifespan,
        title="assay",
        version=__version__,
        description="Drive task runs over HTTP and get graded by the state the agent leaves behind. "
        f"A request body may hold at most {max_body_bytes} bytes (413 `payload_too_large`).",
    )
    app.state.context = context
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)
    install(app)

    @app.exception_handler(task_runs.Rejected)
    async def _rejected(_: Any, error: task_runs.Rejected) -> JSONResponse:
        return rejected_response(error)

    @app.get("/v1/health", include_in_schema=False)
    async def health() -> dict[str, str]:
        """Open to anyone: answered once the server, its listeners included, has started."""
        return {"status": "ok"}

    @app.post(
        "/v1/benchmark-runs",
        status_code=201,
        response_model=RunCreated,
        responses=errors(400, 403, 404, 422),
    )
    async def create_benchmark_run(body: CreateRun, who: AnyKey) -> Response:
        """Plan a benchmark run of a served world; returns its bearer token and task-run URLs."""
        return model_response(benchmark_runs.create_run(context, who, body), status=201)

    @app.get("/v1/benchmark-runs/{run_id}", response_model=BenchmarkRunOut, responses=errors(404))
    async def get_benchmark_run(run_id: str, who: Anyone) -> BenchmarkRunOut:
        """The run, its task runs, and its aggregate once every task run has finished."""
        return benchmark_runs.view_run(context, who, run_id)

    @app.post(
        "/v1/benchmark-runs/{run_id}/cancel",
        response_model=BenchmarkRunOut,
        responses=errors(404, 409),
    )
    async def cancel_benchmark_run(run_id: str, who: Anyone) -> BenchmarkRunOut:
        """Cancel the unfinished task runs; finished ones are kept."""
        return benchmark_runs.cancel_run(context, who, run_id)

    @app.post(
        "/v1/task-runs/{task_run_id}/start",
        response_model=Observation,
        response_model_exclude_none=True,
        responses=errors(404, 409),
    )
    async def start_task_run(task_run_id: str, who: Anyone) -> Response:
        """Reset the world for this task run; the first observation."""
        return model_response(task_runs.start(context, who, task_run_id), exclude_none=True)

    @app.post(
        "/v1/task-runs/{task_run_id}/act",
        response_model=Observation,
        response_model_exclude_none=True,
        responses={**errors(400, 404, 409), 422: {"model": RejectedBody}},
    )
    async def act(task_run_id: str, body: Act, who: Anyone) -> Response:
        """One action (`call` or `say`); the next observation."""
        return model_response(task_runs.act(context, who, task_run_id, body), exclude_none=True)

    @app.post(
        "/v1/task-runs/{task_run_id}/complete",
        response_model=Completion,
        responses=errors(400, 404, 409, 422),
    )
    async def complete_task_run(task_run_id: str, body: Complete, who: Anyone) -> Response:
        """Finish with the final output and grade the world now."""
        return model_response(task_runs.complete(context, who, task_run_id, body.output))

    @app.post(
        "/v1/task-runs/{task_run_id}/cancel",
        response_model=TaskRunOut,
        responses=errors(404, 409),
    )
    async def cancel_task_run(task_run_id: str, who: Anyone) -> TaskRunOut:
        """End the task run as cancelled; it does not count in the run's aggregate."""
        return task_runs.cancel_task_run(context, who, task_run_id)

    @app.get("/v1/task-runs/{task_run_id}", response_model=TaskRunOut, responses=errors(404))
    async def get_task_run(task_run_id: str, who: Anyone) -> TaskRunOut:
        return task_runs.view_task_run(context, who, task_run_id)

    @app.get("/v1/criterion-runs", response_model=CheckRunPage, responses=errors(404, 422))
    async def list_criterion_runs(
        who: Anyone,
        task_run_id: Annotated[str, Query(min_length=1)],
        cursor: str | None = None,
        limit: Annotated[int, Query(ge=1, le=200)] = 50,
    ) -> CheckRunPage:
        """A task run's criterion runs, in order, a page at a time."""
        return criterion_runs.list_criterion_runs(context, who, task_run_id, cursor, limit)

    @app.get("/v1/criterion-runs/{check_run_id}", response_model=CheckRunOut, responses=errors(404))
    async def get_criterion_run(check_run_id: str, who: Anyone) -> CheckRunOut:
        """One criterion run; with the operator key, always with its details and evidence."""
        return criterion_runs.get_criterion_run(context, who, check_run_id)

    app.include_router(key_routes)
    app.include_router(world_routes)
    app.include_router(fhir_routes)
    app.include_router(voice_routes)
    app.include_router(portal_routes)
    app.include_router(hl7_routes)
    app.include_router(files_routes)
    app.include_router(x12_routes)
    _mount_viewer(app, context)
    # each task run an MCP server over Streamable HTTP (`assay.mcp.http`), an ASGI app of its own
    app.router.routes.append(
        Route(MCP_PATH, mcp if mcp is not None else _no_mcp, methods=["GET", "POST", "DELETE"])
    )
    return app


MCP_PATH = "/v1/task-runs/{task_run_id}/mcp"
VIEW_PATH = "/view"


def _mount_viewer(app: FastAPI, context: Context) -> None:
    """The web viewer at /view for the operator key (a bearer header, or a browser signed in at
    /view/login), or 501 without `assay[report]`."""
    from assay.report.requirements import missing

    if missing():
        app.router.routes.append(Route(VIEW_PATH + "{rest:path}", _no_viewer))
        return
    from assay.api.view_login import (
        SignInFirst,
        ViewSessions,
        login_router,
        sign_in_redirect,
        viewer_access,
    )
    from assay.view import viewer_router

    sessions = ViewSessions(context.auth)
    app.include_router(login_router(sessions, VIEW_PATH))
    app.add_exception_handler(SignInFirst, sign_in_redirect(VIEW_PATH))
    app.include_router(
        viewer_router(context.store), prefix=VIEW_PATH, dependencies=[viewer_access(sessions)]
    )


def _mcp_mount(context: Context) -> Any:
    """The MCP mount over the context, or None without the MCP SDK (`assay[mcp]`)."""
    if find_spec("mcp") is None:
        return None
    from assay.api.mcp_deferred import DeferredMcp

    return DeferredMcp(context)


async def _no_viewer(_: Request) -> Response:
    message = "the web viewer needs jinja2 and matplotlib: pip install 'assay[report]'"
    return error_response(501, "viewer_unavailable", message)


async def _no_mcp(_: Request) -> Response:
    message = "serving task runs over MCP needs the MCP SDK: pip install 'assay[mcp]'"
    return error_response(501, "mcp_unavailable", message)
