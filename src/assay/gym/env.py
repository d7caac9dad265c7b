"""`assay/Task-v0`: a task run of a world as a Gymnasium environment, its observations and actions
JSON text."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium
from gymnasium.spaces import Text

from assay.rl.episode import Episode
from assay.rl.pool import TaskPool
from assay.runs.benchmark import Benchmark
from assay.taskrun.observation import Observation

OBSERVATION_MAX = 1_048_576  # characters of an observation's JSON
ACTION_MAX = 65_536  # characters of an action's JSON
# JSON written with ASCII escapes holds no control character but DEL; an agent may send any text.
CHARSET = "".join(chr(code) for code in range(32, 128))


class TaskEnv(gymnasium.Env[str, str]):
    """Each episode is a fresh task run of `task` (or of a task drawn, seeded, from `split`).

    The observation is the task run's observation and the action one action, both as JSON text:
    `{"call": {"tool": ..., "args": {...}}}`, `{"say": ...}` or `{"finish": ...}`. The reward is 0
    until the run ends, then its reward (1 verified, 0 not achieved, -1 a rule broken); a run
    that is not scored ends with 0 and `info["not_scored"]` True.

    `store`: True keeps the task runs in the records store, a URL or path in that store (default:
    not kept). `split` defaults to train; withdrawn tasks are left out unless `include_withdrawn`.
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (Gymnasium's own attribute)

    def __init__(
        self,
        world: str | Path | Benchmark,
        task: str | Sequence[str] | None = None,
        split: str | Sequence[str] | None = None,
        *,
        store: bool | str | Path | None = None,
        include_withdrawn: bool = False,
        world_db: str | None = None,
        agent: str = "gym",
        max_observation_length: int = OBSERVATION_MAX,
        max_action_length: int = ACTION_MAX,
    ):
        self.pool = TaskPool.open(
            world,
            task,
            split,
            store=store,
            include_withdrawn=include_withdrawn,
            world_db=world_db,
            agent=agent,
        )
        self.observation_space = Text(max_observation_length, charset=CHARSET)
        self.action_space = Text(max_action_length, charset=CHARSET)
        self.episode: Episode | None = None

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """A fresh task run; `options={"task": id}` picks its task instead of drawing one."""
        super().reset(seed=seed)
        self._drop_episode()
        task = self.pool.pick(
            lambda count: int(self.np_random.integers(count)), (options or {}).get("task")
        )
        self.episode = self.pool.start(task)
        text = _json(self.episode.observation())
        if len(text) > self.observation_space.max_length:  # the first step then ends the run
            text = _json(self.episode.session.fail_world(self._too_long(len(text))))
        return text, self.episode.info()

    def step(self, action: str | dict[str, Any]) -> tuple[str, float, bool, bool, dict[str, Any]]:
        if self.episode is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        if isinstance(action, str) and len(action) > self.action_space.max_length:
            message = (
                f"the action is {len(action)} characters, over the limit of "
                f"{self.action_space.max_length}"
            )
            transition = self.episode.reject(action[:200], message)
        else:
            transition = self.episode.act(action)
        text = _json(transition.observation)
        if len(text) > self.observation_space.max_length:
            transition = self.episode.oversized(transition, self._too_long(len(text)))
            text = _json(transition.observation)
        return text, transition.reward, transition.terminated, transition.truncated, transition.info

    def close(self) -> None:
        self._drop_episode()
        self.pool.close()

    def _drop_episode(self) -> None:
        if self.episode is not None:
            self.episode.close()
            self.episode = None

    def _too_long(self, length: int) -> str:
        return f"observation of {length} characters over max_observation_length {self.observation_space.max_length}"


def _json(observation: Observation) -> str:
    """The observation's JSON with ASCII escapes, so that it lies in the space."""
    text = observation.model_dump_json(by_alias=True, exclude_none=True)
    return text if text.isascii() else json.dumps(json.loads(text), separators=(",", ":"))
