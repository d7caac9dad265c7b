"""The OpenEnv server of a world: openenv-core's own FastAPI app over `TaskEnvironment`."""

from __future__ import annotations

from functools import partial

from fastapi import FastAPI
from openenv.core.env_server.http_server import create_app

from assay.openenv.env import TaskEnvironment
from assay.openenv.models import TaskAction, TaskObservation
from assay.rl.pool import TaskPool

DEFAULT_SESSIONS = 16


def openenv_app(pool: TaskPool, max_sessions: int = DEFAULT_SESSIONS) -> FastAPI:
    """The app: `/ws` for sessions (each its own task runs), `/health`, `/schema`, `/metadata`,
    and OpenEnv's one-shot `/reset` and `/step`."""
    return create_app(
        partial(TaskEnvironment, pool),
        TaskAction,
        TaskObservation,
        env_name=pool.benchmark.world.name,
        max_concurrent_envs=max_sessions,
    )
