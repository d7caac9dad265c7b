"""The OpenEnv server of a world: openenv-core's own FastAPI app over `TaskEnvironment`."""

from __future__ import annotations

from contextlib import suppress
from functools import partial
from typing import Any

from fastapi import FastAPI
from openenv.core.env_server.http_server import create_app
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect

from assay.openenv.env import OneThreadTaskEnvironment, TaskEnvironment
from assay.openenv.models import TaskAction, TaskObservation
from assay.rl.pool import TaskPool

DEFAULT_SESSIONS = 16


def openenv_app(
    pool: TaskPool, max_sessions: int = DEFAULT_SESSIONS, *, one_thread: bool = False
) -> FastAPI:
    """The app: `/ws` for sessions (each its own task runs), `/health`, `/schema`, `/metadata`,
    and OpenEnv's one-shot `/reset` and `/step`. `one_thread`: every session steps on one thread
    (`OneThreadTaskEnvironment`), else each on its own."""
    environment = OneThreadTaskEnvironment if one_thread else TaskEnvironment
    app = create_app(
        partial(environment, pool),
        TaskAction,
        TaskObservation,
        env_name=pool.benchmark.world.name,
        max_concurrent_envs=max_sessions,
    )
    app.add_middleware(QuietDisconnect)
    return app


class QuietDisconnect:
    """openenv-core closes a session's WebSocket after its client has closed it, which raises and
    logs a traceback per session; the session is over either way, so that is not an error."""

    def __init__(self, app: ASGIApp, **_: Any):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        with suppress(WebSocketDisconnect):
            await self.app(scope, receive, send)
