"""The MCP mount with the MCP SDK loaded after the server answers, not before: importing the SDK
costs more than the rest of `assay serve`'s start-up, and only MCP clients need it.

The SDK is imported in a thread as the server starts; the first MCP request waits for that import
if it has not ended. The mount then lives in a task of the server's own task group, so its life
(and its sessions') ends with the server's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from anyio.abc import TaskGroup, TaskStatus
from starlette.types import Receive, Scope, Send

from assay.api.errors import error_response
from assay.served.context import Context


class DeferredMcp:
    """The ASGI app behind `/v1/task-runs/{task_run_id}/mcp`; `lifespan` wraps the API app's life."""

    def __init__(self, context: Context):
        self.context = context
        self._mount: Any = None
        self._group: TaskGroup | None = None
        self._app: Any = None
        self._lock = anyio.Lock()

    @asynccontextmanager
    async def lifespan(self, app: Any) -> AsyncIterator[None]:
        async with anyio.create_task_group() as group:
            self._group, self._app = group, app
            group.start_soon(anyio.to_thread.run_sync, _import_sdk)
            try:
                yield
            finally:
                self._group = None
                group.cancel_scope.cancel()  # ends the mount's life, and every session with it

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        mount = self._mount or await self._started()
        if mount is None:
            await error_response(503, "unavailable", "the MCP server is not running")(
                scope, receive, send
            )
            return
        await mount(scope, receive, send)

    async def _started(self) -> Any:
        async with self._lock:
            if self._mount is None and self._group is not None:
                mount_class = await anyio.to_thread.run_sync(_import_sdk)
                self._mount = await self._group.start(_live, mount_class(self.context), self._app)
            return self._mount


def _import_sdk() -> type:
    from assay.mcp.http import McpMount

    return McpMount


async def _live(mount: Any, app: Any, *, task_status: TaskStatus[Any] = anyio.TASK_STATUS_IGNORED):
    """Hold the mount's lifespan open until the server's task group is cancelled."""
    async with mount.lifespan(app):
        task_status.started(mount)
        await anyio.sleep_forever()
