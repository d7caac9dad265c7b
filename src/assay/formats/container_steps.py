"""A multi-step task's steps: each step's view of task.toml (its own agent and verifier settings
over the task's), its files under steps/<name>/, and how the steps' rewards make the task's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from assay.formats.container_config import StepConfig, TaskConfig, VerifierConfig


@dataclass(frozen=True)
class StepFiles:
    """What steps/<name>/ holds: the instruction, and the folders the step adds."""

    name: str
    instruction: str
    test_script: Path | None  # steps/<name>/tests/test.sh, else the task's tests/test.sh
    tests_dirs: tuple[Path, ...]  # copied into /tests in order: the task's tests/, the step's
    workdir: Path | None  # copied into the working directory before the step (setup.sh runs)
    solution_dir: Path | None


def step_config(config: TaskConfig, step: StepConfig) -> TaskConfig:
    """task.toml as one step runs it: what the step sets wins, the rest is the task's."""
    agent = config.agent.model_copy(update=_set(step.agent))
    verifier = config.verifier.model_copy(
        update={
            **_set(step.verifier, exclude=("env", "environment", "environment_mode")),
            "env": {**config.verifier.env, **step.verifier.env},
            **_verifier_environment(config, step.verifier),
        }
    )
    artifacts = [*config.artifacts, *step.artifacts]
    return config.model_copy(update={"agent": agent, "verifier": verifier, "artifacts": artifacts})


def _set(model: BaseModel, exclude: Sequence[str] = ()) -> dict[str, object]:
    """The fields a step's table gives itself (a default it only inherits is not one)."""
    return {name: getattr(model, name) for name in model.model_fields_set if name not in exclude}


def _verifier_environment(config: TaskConfig, own: VerifierConfig) -> dict[str, object]:
    """The step's verifier mode and environment: its explicit mode, else separate when it names
    an environment, else the task's; a separate step without one verifies in the task's."""
    if own.environment_mode is None and own.environment is None:
        return {}
    mode = own.environment_mode or "separate"
    if mode == "shared":
        return {"environment_mode": "shared", "environment": None}
    environment = own.environment or config.verifier.environment or config.environment
    return {"environment_mode": "separate", "environment": environment}


def below_min_reward(
    rewards: Mapping[str, float] | None, min_reward: float | Mapping[str, float] | None
) -> str | None:
    """Why a step's rewards stop the later steps (a number gates `reward`, a table each key it
    names; a key missing counts as -inf), or None when they go on."""
    if min_reward is None:
        return None
    wanted = {"reward": min_reward} if isinstance(min_reward, int | float) else min_reward
    for key, threshold in wanted.items():
        found = (rewards or {}).get(key, float("-inf"))
        if found < threshold:
            return f"{key} = {found} is below min_reward {threshold}"
    return None


def combined_rewards(
    per_step: Sequence[Mapping[str, float] | None], strategy: str | None
) -> dict[str, float] | None:
    """The task's rewards from its steps': `final` the last step's as they are; `mean` (the
    default) each key's mean over the steps that were verified, a key a step lacks counting 0.
    None when no step gave any."""
    if strategy == "final":
        last = per_step[-1] if per_step else None
        return dict(last) if last is not None else None
    verified = [rewards for rewards in per_step if rewards is not None]
    keys = sorted({key for rewards in verified for key in rewards})
    if not keys:
        return None
    return {key: sum(rewards.get(key, 0.0) for rewards in verified) / len(verified) for key in keys}
