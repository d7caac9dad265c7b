"""Each task run as an MCP server over Streamable HTTP at `/v1/task-runs/{id}/mcp`, behind the
bearer token of its run (the operator key reaches every one), with the API's 401/404 rules.

A task run gets its own SDK server (whose instructions are its brief) and session manager, made at
its first MCP request. Ending a session (DELETE, as SDK clients do on close) before `finish`
cancels the task run, graded and stored; a session that only goes quiet leaves it open. A task run
holds at most MAX_SESSIONS sessions at once; a completed one opens none.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
from anyio.abc import TaskGroup, TaskStatus
from mcp import types
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.datastructures import Headers
from starlette.types import Message, Receive, Scope, Send

from assay.mcp.brief import brief_at_start
from assay.mcp.served import ServedTaskRun
from assay.mcp.server import build_server
from assay.runs.store.progress import TaskRunRef
from assay.served.auth import Caller
from assay.served.context import Context
from assay.served.errors import ApiError, error_response

# Open sessions one task run may hold (the SDK answers 503 past it); a quiet one ends after the
# SDK's idle timeout (30 minutes), which frees its place.
MAX_SESSIONS = 8


class OneTaskRun:
    """The desk of a task run served over HTTP."""

    def __init__(self, served: ServedTaskRun):
        self.served = served

    def tools(self, agent: str) -> list[types.Tool]:
        self.served.agent = agent
        return self.served.tools()

    def call(self, agent: str, name: str, args: dict[str, Any]) -> types.CallToolResult:
        self.served.agent = agent
        return self.served.call(name, args)

    def brief(self, agent: str) -> str:
        self.served.agent = agent
        return self.served.brief()

    def tools_changed(self) -> bool:
        return False


@dataclass
class Mounted:
    desk: OneTaskRun
    manager: StreamableHTTPSessionManager
    stop: anyio.Event


class McpMount:
    """The ASGI app behind `/v1/task-runs/{task_run_id}/mcp`; `lifespan` wraps the API app's life."""

    def __init__(self, context: Context):
        self.context = context
        self._mounted: dict[str, Mounted] = {}
        self._group: TaskGroup | None = None
        self._lock = anyio.Lock()

    @asynccontextmanager
    async def lifespan(self, _: Any) -> AsyncIterator[None]:
        async with anyio.create_task_group() as group:
            self._group = group
            try:
                yield
            finally:
                self._group = None
                self._mounted.clear()
                group.cancel_scope.cancel()  # ends every session; task runs stay as they are

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        task_run_id = scope["path_params"]["task_run_id"]
        try:
            caller = self.context.auth.caller(headers.get("authorization"))
            ref = self.context.task_run(caller, task_run_id)
            opening = headers.get(MCP_SESSION_ID_HEADER) is None  # a new session: initialize
            if ref.phase == "completed" and opening:
                raise ApiError(409, "completed", f"task run {ref.id} is already completed")
            mounted = self._mounted.get(ref.id) or await self._mount(ref)
        except ApiError as error:
            await error_response(error.status, error.code, error.message)(scope, receive, send)
            return
        status = await _answered(mounted.manager.handle_request, scope, receive, send)
        if scope["method"] == "DELETE" and status == 200:
            self._ended(task_run_id, mounted)

    async def _mount(self, ref: TaskRunRef) -> Mounted:
        async with self._lock:
            mounted = self._mounted.get(ref.id)
            if mounted is None:
                if self._group is None:
                    raise ApiError(503, "unavailable", "the MCP server is not running")
                # the wrapper has checked the credential; the server acts as the run's token would
                served = ServedTaskRun(self.context, Caller(run_id=ref.benchmark_run_id), ref.id)
                world = self.context.run_info(ref.benchmark_run_id).benchmark.world
                desk = OneTaskRun(served)
                server = build_server(desk, instructions=brief_at_start(world, served.task))
                manager = StreamableHTTPSessionManager(server, max_sessions=MAX_SESSIONS)
                mounted = Mounted(desk, manager, anyio.Event())
                await self._group.start(_hold, mounted.manager, mounted.stop)
                self._mounted[ref.id] = mounted
            return mounted

    def _ended(self, task_run_id: str, mounted: Mounted) -> None:
        """The client closed its session: an unfinished task run is cancelled, and its server goes."""
        mounted.desk.served.cancel()
        self._mounted.pop(task_run_id, None)
        mounted.stop.set()


async def _hold(
    manager: StreamableHTTPSessionManager,
    stop: anyio.Event,
    *,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Run a session manager until told to stop (its sessions run in its own task group)."""
    async with manager.run():
        task_status.started()
        await stop.wait()


async def _answered(app: Any, scope: Scope, receive: Receive, send: Send) -> int | None:
    """Run `app` for one request; the HTTP status it answered with."""
    status: int | None = None

    async def watch(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        await send(message)

    await app(scope, receive, watch)
    return status
