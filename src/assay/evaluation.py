"""`assay.evaluate`: one call that runs a world with an agent as `assay run` does (its
configuration built and stored with the run) and returns the result as one typed value."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from assay.errors import UsageError
from assay.runs.config import ModelConfig, RunConfig
from assay.score.result import TaskRunResult


class RunResult(BaseModel, defer_build=True):
    """A finished benchmark run: its id in the store, its score and verdict, how many task runs
    ended in each outcome, every task run's result and the configuration it was made with."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    world: str
    agent: str
    phase: str  # completed, or cancelled when stopped early
    score: float | None
    verdict: str | None
    outcomes: dict[str, int]
    task_runs: list[TaskRunResult]
    config: RunConfig


def evaluate(
    world: str | Path, agent: str = "reference", *, store: str | None = None, **settings: Any
) -> RunResult:
    """Run every chosen task of `world` with `agent` (an agent string, as `assay run --agent`
    takes), record the run in `store` (default: as `assay run`'s) and return its result.

    `settings` are `RunConfig`'s (`tasks`, `splits`, `repeats`, `judge_model`, `customer`,
    `workers`, …); the model's (`temperature`, `seed`, `base_url`, …) may be given by name or as
    `model={…}`. A setting that is unknown or bad is a UsageError naming it.
    """
    from assay.launch.start import fresh_run
    from assay.runs.store import open_store

    config = run_config(agent, settings)
    with open_store(store) as records:
        outcome = fresh_run(records, Path(world), config)
        run = outcome.benchmark_run
        results = list(records.each_result(run.id))
    return RunResult(
        run_id=run.id,
        world=run.world,
        agent=run.agent,
        phase=run.phase,
        score=run.score,
        verdict=run.verdict,
        outcomes=dict(run.outcomes),
        task_runs=results,
        config=config,
    )


def run_config(agent: str, settings: dict[str, Any]) -> RunConfig:
    """The configuration `evaluate` was asked for; UsageError naming a setting it cannot take."""
    chosen = {key: value for key, value in settings.items() if key not in ModelConfig.model_fields}
    model = {key: value for key, value in settings.items() if key in ModelConfig.model_fields}
    if model:
        chosen["model"] = {**chosen.get("model", {}), **model}
    try:
        return RunConfig.model_validate({**chosen, "agent": agent})
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        location = [str(part) for part in first["loc"]]
        given_flat = location[:1] == ["model"] and location[1:2] and location[1] in settings
        name = ".".join(location[1:] if given_flat else location)
        problem = "unknown setting" if first["type"] == "extra_forbidden" else first["msg"]
        raise UsageError(f"evaluate({name}=…): {problem.removeprefix('Value error, ')}") from None
