"""The HTTP API: the v1 flow of benchmark runs, task runs and criterion runs, on FastAPI."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from importlib.util import find_spec
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from assay import __version__
from assay.api.errors import install
from assay.api.lane import FastLane, rejected_response
from assay.api.limits import DEFAULT_MAX_BODY_BYTES, BodyLimit
from assay.api.routes_fhir import router as fhir_routes
from assay.api.routes_files import router as files_routes
from assay.api.routes_hl7 import router as hl7_routes
from assay.api.routes_keys import router as key_routes
from assay.api.routes_portal import router as portal_routes
from assay.api.routes_runs import router as run_routes
from assay.api.routes_voice import router as voice_routes
from assay.api.routes_worlds import router as world_routes
from assay.api.routes_x12 import router as x12_routes
from assay.served import task_runs
from assay.served.context import Context
from assay.served.errors import error_response

# in the order the API's document lists them
ROUTERS: tuple[APIRouter, ...] = (
    run_routes,
    key_routes,
    world_routes,
    fhir_routes,
    voice_routes,
    portal_routes,
    hl7_routes,
    files_routes,
    x12_routes,
)


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
    app = Api(
        context,
        max_body_bytes,
        lifespan=_lifespan(context, mcp),
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

    for router in ROUTERS:
        app.include_router(router)
    _mount_viewer(app, context)
    # each task run an MCP server over Streamable HTTP (`assay.mcp.http`), an ASGI app of its own
    app.router.routes.append(
        Route(MCP_PATH, mcp if mcp is not None else _no_mcp, methods=["GET", "POST", "DELETE"])
    )
    return app


def _lifespan(context: Context, mcp: Any) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The server's start and stop: the MCP mount's, then the context's listeners."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            if mcp is not None:
                await stack.enter_async_context(mcp.lifespan(app))
            await context.start_listeners()
            stack.push_async_callback(context.stop_listeners)
            yield

    return lifespan


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
