"""Trial folders kept on disk (`--keep-artifacts DIR`): for each task run of a container-format
world, DIR/<task>/<task run id>/ with the sandbox's files and a result.json summarising the run."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import UsageError

if TYPE_CHECKING:
    from assay.score.result import TaskRunResult
    from assay.world.kind import KindRun
    from assay.world.live import World

RESULT = "result.json"
OPTION = "--keep-artifacts"


def keep_folder(given: Path) -> Path:
    """The directory trial folders go into, made if missing, as an absolute path; UsageError
    naming the option when it is a file or cannot be made or written."""
    folder = given.expanduser().absolute()
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{OPTION}: {given} is not a directory")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"{OPTION}: {given} cannot be made: {error.strerror or error}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{OPTION}: {given} is not writable")
    return folder


def keep_trials(world: World, folder: Path) -> None:
    """Keep a trial folder under `folder` for every task run of `world`; UsageError for a world
    whose task runs have none (a database world's state is its database)."""
    if not world.kind.sandboxed:
        raise UsageError(f"{OPTION}: only container-format tasks leave trial folders")
    world.kind.trial_folders = folder


def kept_folder(world: World) -> Path | None:
    """Where `world`'s task runs keep their trial folders; None when they keep none."""
    return world.kind.trial_folders


def keep_task_run(folder: Path, world_run: KindRun, result: TaskRunResult) -> Path:
    """Write the task run's trial folder under `folder` and return it. A failure to write is
    recorded in the folder's result.json when it can be, never raised: the run's result counts."""
    target = folder / result.task_id / result.id
    notes: list[str] = []
    try:
        notes = world_run.keep_files(target)
    except OSError as error:
        notes.append(f"keep_failed: {error}")
    try:
        text = json.dumps(trial_result(result, notes), indent=2, sort_keys=False)
        (target / RESULT).write_text(text + "\n", encoding="utf-8")
    except OSError:
        pass  # the disk that refused the files refuses their summary: the store still has it
    return target


def trial_result(result: TaskRunResult, notes: list[str]) -> dict[str, Any]:
    """The task run as result.json tells it: outcome, reward, the verifier's status and why."""
    evidence = next(
        (check.evidence for check in result.checks if check.kind == "script" and check.evidence),
        {},
    )
    error = result.error
    return {
        "task_run_id": result.id,
        "task_id": result.task_id,
        "title": result.title,
        "repeat": result.repeat,
        "agent": result.agent,
        "outcome": result.outcome,
        "reward": result.reward,
        "score": result.score,
        "verifier_status": evidence.get("status"),
        "rewards": evidence.get("rewards", {}),
        "primary": evidence.get("primary"),
        "reason": evidence.get("reason") or (error.message if error else None),
        "failure_side": evidence.get("failure_side") or (error.side if error else None),
        "exit_code": evidence.get("exit_code"),
        "notes": evidence.get("notes", []),
        "kept_notes": notes,
        "final_state_hash": result.final_state_hash,
        "started_at": result.started_at,
        "duration_s": result.duration_s,
    }
