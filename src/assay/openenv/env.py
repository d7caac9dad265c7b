"""An assay world as an OpenEnv `Environment`: each reset starts a fresh task run."""

from __future__ import annotations

import random
from typing import Any

from fastapi import HTTPException
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import EnvironmentMetadata

from assay.errors import UsageError
from assay.openenv.models import TaskAction, TaskObservation, TaskState
from assay.rl.episode import Episode, Transition
from assay.rl.pool import TaskPool


class TaskEnvironment(Environment[TaskAction, TaskObservation, TaskState]):
    """One per client session; the sessions share the pool (the loaded world), each task run has a
    world of its own."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, pool: TaskPool):
        super().__init__()
        self.pool = pool
        self.episode: Episode | None = None
        self._random = random.Random()

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task: str | None = None,
        **kwargs: Any,
    ) -> TaskObservation:
        """A fresh task run of `task`, else of a task drawn from the served ones (seeded by
        `seed`); `episode_id` becomes the task run's id."""
        self._drop_episode()
        draw = random.Random(seed) if seed is not None else self._random
        try:
            chosen = self.pool.pick(draw.randrange, task)
        except UsageError as error:  # a session hears the message; one-shot HTTP gets a 422
            raise HTTPException(422, str(error)) from None
        self.episode = self.pool.start(chosen, episode_id)
        return TaskObservation(
            observation=self.episode.observation().as_json(), info=self.episode.info()
        )

    def step(
        self, action: TaskAction, timeout_s: float | None = None, **kwargs: Any
    ) -> TaskObservation:
        if self.episode is None:
            raise HTTPException(
                409, "no task run: reset first, in the same session (one-shot /step has none)"
            )
        return _observation(self.episode.act(action.as_action()))

    @property
    def state(self) -> TaskState:
        episode = self.episode
        if episode is None:
            return TaskState()
        turn = episode.session.turn
        return TaskState(
            episode_id=episode.run_id,
            step_count=turn,
            task_run_id=episode.run_id,
            task_id=episode.task.id,
            turn=turn,
            done=episode.session.done,
        )

    def get_metadata(self) -> EnvironmentMetadata:
        world = self.pool.benchmark.world
        return EnvironmentMetadata(
            name=world.name,
            description=world.spec.description or f"the assay world {world.name}",
            version=world.version,
        )

    def close(self) -> None:
        self._drop_episode()

    def _drop_episode(self) -> None:
        if self.episode is not None:
            self.episode.close()
            self.episode = None


def _observation(transition: Transition) -> TaskObservation:
    return TaskObservation(
        done=transition.done,
        reward=transition.reward,
        observation=transition.observation.as_json(),
        truncated=transition.truncated,
        info=transition.info,
    )


class OneThreadTaskEnvironment(TaskEnvironment):
    """A TaskEnvironment whose sessions all take their steps on one thread (openenv-core's own
    switch), rather than on a thread a session: a thousand sessions no longer take turns at the
    interpreter, but a step that waits (a model customer's reply, a sandbox's command) holds up
    every session (`assay openenv --one-thread`)."""

    REQUIRES_SINGLE_THREAD_EXECUTOR = True
