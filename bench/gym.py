"""Environment steps per second through `assay/Task-v0`, for one environment and for vectors of
them, in-process (sync) and one process per environment (async).

Run `python bench/gym.py`; it prints one JSON object. Each episode is the task of
`bench/taskruns.py` played by its reference solution: five tool calls and a finish that grades five
checks; a step is one action (the steps a vector spends resetting a finished environment are not
counted). `run_task` plays the same episodes with no environment around them, for comparison. No
goal is asserted anywhere.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from taskruns import write_world

SECONDS = 3.0  # of stepping per figure, after a warm-up
WIDE = 4  # environments in the wider vectors


def reference_actions(world: Path) -> list[str]:
    from assay.runs import open_benchmark
    from assay.taskrun import agent_factory
    from assay.taskrun.actions import Finish, action_json

    benchmark = open_benchmark(world)
    agent = agent_factory("reference")(benchmark.tasks["five"])
    actions = []
    while True:
        action = agent.act(None)
        actions.append(json.dumps(action_json(action)))
        if isinstance(action, Finish):
            benchmark.close()
            return actions


def single(world: Path, actions: list[str]) -> dict[str, float]:
    import gymnasium

    env = gymnasium.make("assay/Task-v0", world=str(world), task="five")
    steps = 0
    started = time.perf_counter()
    warm_until = started + 0.5
    while True:
        env.reset()
        for action in actions:
            env.step(action)
        steps += len(actions)
        now = time.perf_counter()
        if now < warm_until:
            steps, started = 0, now
        elif now - started >= SECONDS:
            break
    env.close()
    return _figures(steps, time.perf_counter() - started, len(actions))


def without_env(world: Path, per_episode: int) -> dict[str, float]:
    """The same task runs by `run_task` and the reference agent: what the environment adds to."""
    from assay.runs import open_benchmark, run_task
    from assay.taskrun import agent_factory

    benchmark = open_benchmark(world)
    task = benchmark.tasks["five"]
    make = agent_factory("reference")
    episodes = 0
    started = time.perf_counter()
    warm_until = started + 0.5
    while True:
        run_task(benchmark, task, make(task), run_id="tr")
        episodes += 1
        now = time.perf_counter()
        if now < warm_until:
            episodes, started = 0, now
        elif now - started >= SECONDS:
            break
    benchmark.close()
    return _figures(episodes * per_episode, time.perf_counter() - started, per_episode)


def vector(world: Path, actions: list[str], mode: str, count: int) -> dict[str, float]:
    import gymnasium

    envs = gymnasium.make_vec(
        "assay/Task-v0", num_envs=count, vectorization_mode=mode, world=str(world), task="five"
    )
    envs.reset(seed=0)
    position = [0] * count
    resetting = [False] * count  # the next step of a finished environment only resets it
    steps = 0
    started = time.perf_counter()
    warm_until = started + 0.5
    while True:
        batch = tuple(actions[0] if resetting[i] else actions[position[i]] for i in range(count))
        _, _, terminated, truncated, _ = envs.step(batch)
        for i in range(count):
            if resetting[i]:
                position[i] = 0
            else:
                steps += 1
                position[i] += 1
            resetting[i] = bool(terminated[i] or truncated[i])
        now = time.perf_counter()
        if now < warm_until:
            steps, started = 0, now
        elif now - started >= SECONDS:
            break
    envs.close()
    return _figures(steps, time.perf_counter() - started, len(actions))


def _figures(steps: int, elapsed: float, per_episode: int) -> dict[str, float]:
    return {
        "steps_per_s": round(steps / elapsed, 1),
        "episodes_per_s": round(steps / per_episode / elapsed, 1),
    }


def main() -> None:
    import assay.gym  # noqa: F401  (registers assay/Task-v0)

    with tempfile.TemporaryDirectory() as scratch:
        os.environ["ASSAY_HOME"] = str(Path(scratch) / "home")
        world = write_world(Path(scratch) / "world", 0.01)
        actions = reference_actions(world)
        figures = {
            "steps_per_episode": len(actions),
            "run_task": without_env(world, len(actions)),
            "env": single(world, actions),
            "sync_1": vector(world, actions, "sync", 1),
            f"sync_{WIDE}": vector(world, actions, "sync", WIDE),
            "async_1": vector(world, actions, "async", 1),
            f"async_{WIDE}": vector(world, actions, "async", WIDE),
            "cores": os.cpu_count(),
        }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
