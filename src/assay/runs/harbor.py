"""A stored benchmark run as the container task runner Harbor's job folder: one folder per task
run (trial) with `config.json`, `result.json`, `agent/trajectory.json` (ATIF) and
`verifier/reward.txt`, `reward.json` and `test-stdout.txt` (the checks, one line each)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from assay import __version__
from assay.runs.atif import atif_trajectory
from assay.runs.store.records import RunRecord
from assay.score.result import TaskRunResult
from assay.taskrun.agents.names import parse_agent


def write_harbor_job(run: RunRecord, results: list[TaskRunResult], directory: Path) -> Path:
    """Write the run's trials under `directory/<run id>`; the job folder."""
    job = directory / run.id
    for result in results:
        _write_trial(run, result, job / f"{result.task_id}__{result.repeat}")
    return job


def _write_trial(run: RunRecord, result: TaskRunResult, trial: Path) -> None:
    (trial / "agent").mkdir(parents=True, exist_ok=True)
    (trial / "verifier").mkdir(exist_ok=True)
    config = _config(run, result, trial)
    _dump(trial / "config.json", config)
    _dump(trial / "result.json", _result(run, result, trial, config))
    _dump(trial / "agent" / "trajectory.json", atif_trajectory(result))
    lines = [
        f"{'PASS' if c.passed else 'FAIL'} [{c.type}] {c.name}: {c.details}" for c in result.checks
    ]
    (trial / "verifier" / "test-stdout.txt").write_text("\n".join(lines) + "\n")
    rewards = _rewards(result)
    if rewards is not None:  # a task run not scored has no reward, not a zero
        (trial / "verifier" / "reward.txt").write_text(f"{rewards['reward']}\n")
        _dump(trial / "verifier" / "reward.json", rewards)


def _config(run: RunRecord, result: TaskRunResult, trial: Path) -> dict[str, Any]:
    model = parse_agent(result.agent).model
    return {
        "task": {"path": _task_path(run, result)},
        "trial_name": trial.name,
        "trials_dir": str(trial.parent),
        "agent": {"name": result.agent, "model_name": model},
    }


def _result(
    run: RunRecord, result: TaskRunResult, trial: Path, config: dict[str, Any]
) -> dict[str, Any]:
    summary = result.summary
    task_path = _task_path(run, result)
    made: dict[str, Any] = {
        "task_name": result.task_id,
        "trial_name": trial.name,
        "trial_uri": trial.resolve().as_uri(),
        "task_id": {"path": task_path},
        "source": run.world,
        "task_checksum": hashlib.sha256(
            f"{run.world}@{run.world_version}/{result.task_id}".encode()
        ).hexdigest(),
        "config": config,
        "agent_info": {"name": result.agent, "version": __version__},
        "agent_result": {
            "n_input_tokens": summary.prompt_tokens,
            "n_output_tokens": summary.completion_tokens,
            "metadata": {"assay": result.model_dump(mode="json", exclude={"trajectory"})},
        },
        "verifier_result": {"rewards": _rewards(result)},
        "started_at": result.started_at,
    }
    if result.error is not None and result.reward is None:
        made["exception_info"] = {
            "exception_type": f"NotScored:{result.error.side}",
            "exception_message": result.error.message,
            "exception_traceback": "",
            "occurred_at": result.started_at,
        }
    return made


def _rewards(result: TaskRunResult) -> dict[str, float] | None:
    if result.reward is None:
        return None
    return {"reward": result.reward, "score": result.score or 0.0}


def _task_path(run: RunRecord, result: TaskRunResult) -> str:
    return (
        str(Path(run.world_path) / "tasks" / f"{result.task_id}.toml")
        if run.world_path
        else result.task_id
    )


def _dump(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2, default=str) + "\n")
