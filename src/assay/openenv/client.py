"""A typed OpenEnv client of an assay world: openenv-core's `EnvClient` with assay's models."""

from __future__ import annotations

from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

from assay.openenv.models import TaskAction, TaskObservation, TaskState


class TaskClient(EnvClient[TaskAction, TaskObservation, TaskState]):
    """`async with TaskClient(base_url=url) as env` (or `TaskClient(base_url=url).sync()`):
    `reset(task=…, seed=…)`, `step(TaskAction(call={…}))`, `state()`."""

    def _step_payload(self, action: TaskAction) -> dict[str, Any]:
        return action.model_dump(exclude_none=True, exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[TaskObservation]:
        done, reward = payload.get("done", False), payload.get("reward")
        observation = TaskObservation(**payload.get("observation", {}), done=done, reward=reward)
        return StepResult(observation=observation, reward=reward, done=done)

    def _parse_state(self, payload: dict[str, Any]) -> TaskState:
        return TaskState(**payload)
