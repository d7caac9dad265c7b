"""Each task's standing from its last validation: validated, withdrawn, or not validated yet."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from assay.errors import AssayError, SpecError, UsageError
from assay.formats.files import read_toml, shown
from assay.formats.layout import is_container_world
from assay.formats.load import read_world, task_files
from assay.formats.task import TaskSpec
from assay.formats.world import WorldSpec
from assay.runs.plan import DEFAULT_SPLITS, select_tasks
from assay.trust.fingerprint import (
    SANDBOX_TASK_FILE,
    Fingerprint,
    changed_files,
    fingerprint,
    world_files,
)
from assay.trust.store import ValidationStore, default_store
from assay.world.live import World
from assay.world.load import load_world_tolerant

Standing = Literal["validated", "withdrawn", "unvalidated"]


class TaskState(BaseModel, defer_build=True):
    task_id: str
    file: str
    split: str | None
    task_hash: str
    standing: Standing
    validated_at: str | None = None
    reasons: list[str] = []
    changed: list[str] = []  # files changed since the task was last validated


def standing_of(
    task_id: str, digest: str, validations: Sequence[dict[str, Any]]
) -> tuple[Standing, dict[str, Any] | None]:
    """The standing the latest validation of these very files gives; an edit makes it unvalidated."""
    matching = [
        entry
        for entry in validations
        if entry["task_id"] == task_id and entry["task_hash"] == digest
    ]
    if not matching:
        return "unvalidated", None
    latest = max(matching, key=lambda entry: str(entry.get("validated_at") or ""))
    return ("validated" if latest["passed"] else "withdrawn"), latest


def world_states(
    path: str | Path, task_ids: Sequence[str] = (), store: ValidationStore | None = None
) -> list[TaskState]:
    """Each task file of a world (or the named ones) with its standing; reads files only, so a
    task that does not load is listed too."""
    root = Path(path)
    spec, files = _task_files(root)
    unknown = [task_id for task_id in task_ids if task_id not in files]
    if unknown:
        names = ", ".join(files) or "none"
        raise UsageError(
            f"--task: unknown task {unknown[0]!r} in world {spec.name} (tasks: {names})"
        )
    chosen = [
        (task_id, file, _split(file))
        for task_id, file in files.items()
        if not task_ids or task_id in task_ids
    ]
    return _states(root, spec, chosen, store)


def withdrawn_on_file(
    path: str | Path,
    task_ids: Sequence[str] = (),
    splits: Sequence[str] = DEFAULT_SPLITS,
    store: ValidationStore | None = None,
) -> tuple[frozenset[str], list[TaskState]]:
    """Every withdrawn task of a world, read from its files before it loads (a withdrawn task may
    not load at all), and those among them a run of these task ids or splits would hold. A world
    whose own files are wrong has none: loading it says what is wrong, naming file and field."""
    try:
        states = world_states(path, store=store)
    except (AssayError, LookupError, OSError, ValueError):
        return frozenset(), []
    withdrawn = [state for state in states if state.standing == "withdrawn"]
    chosen = [
        state
        for state in withdrawn
        if (state.task_id in task_ids if task_ids else state.split in (*splits, None))
    ]
    return frozenset(state.task_id for state in withdrawn), chosen


def world_spec(path: str | Path) -> WorldSpec:
    """A world's spec; a container-format dataset's is the one its loader makes."""
    root = Path(path)
    return read_world(root) if not is_container_world(root) else load_world_tolerant(root)[0].spec


def _task_files(root: Path) -> tuple[WorldSpec, dict[str, Path]]:
    """The world's spec and each task's file by task id; a container-format dataset's tasks are
    directories holding task.toml."""
    if not is_container_world(root):
        return read_world(root), {file.stem: file for file in task_files(root)}
    world, rejected = load_world_tolerant(root)
    files = dict(world.task_files)
    for task_id in rejected:
        folder = root if (root / SANDBOX_TASK_FILE).is_file() else root / task_id
        files[task_id] = folder / SANDBOX_TASK_FILE
    return world.spec, dict(sorted(files.items()))


def withdrawn_chosen(
    world: World,
    task_ids: Sequence[str] = (),
    splits: Sequence[str] = DEFAULT_SPLITS,
    store: ValidationStore | None = None,
) -> list[TaskState]:
    """The withdrawn tasks among those a run of these task ids or splits would hold."""
    return withdrawn_among(world, select_tasks(world, task_ids, splits), store)


def changed_chosen(
    world: World,
    task_ids: Sequence[str] = (),
    splits: Sequence[str] = DEFAULT_SPLITS,
    store: ValidationStore | None = None,
) -> list[TaskState]:
    """The tasks a run would hold that were validated before and whose files changed since."""
    return changed_among(world, select_tasks(world, task_ids, splits), store)


def withdrawn_among(
    world: World, tasks: Sequence[TaskSpec], store: ValidationStore | None = None
) -> list[TaskState]:
    """The tasks of `tasks` whose last validation failed, in their order."""
    return [state for state in states_among(world, tasks, store) if state.standing == "withdrawn"]


def changed_among(
    world: World, tasks: Sequence[TaskSpec], store: ValidationStore | None = None
) -> list[TaskState]:
    """The tasks of `tasks` validated before whose files have changed since: unvalidated again."""
    return [state for state in states_among(world, tasks, store) if state.changed]


def states_among(
    world: World, tasks: Sequence[TaskSpec], store: ValidationStore | None = None
) -> list[TaskState]:
    """The standing of each of `tasks`, in their order."""
    chosen = [(task.id, world.task_files[task.id], task.split) for task in tasks]
    return _states(world.root, world.spec, chosen, store)


def _states(
    root: Path,
    spec: WorldSpec,
    chosen: Sequence[tuple[str, Path, str | None]],
    store: ValidationStore | None,
) -> list[TaskState]:
    validations = (store or default_store()).latest_validations(spec.name, spec.version)
    shared = world_files(root, spec)  # hashed once for every task of the world
    states = []
    for task_id, file, split in chosen:
        found = fingerprint(root, file, shared)
        standing, latest = standing_of(task_id, found.digest, validations)
        states.append(
            TaskState(
                task_id=task_id,
                file=shown(file),
                split=split,
                task_hash=found.digest,
                standing=standing,
                validated_at=latest.get("validated_at") if latest else None,
                reasons=_reasons(latest["record"]) if latest and not latest["passed"] else [],
                changed=[] if latest else _changed(task_id, found, validations),
            )
        )
    return states


def _changed(task_id: str, now: Fingerprint, validations: Sequence[dict[str, Any]]) -> list[str]:
    """The files that differ from the task's latest validation, if it was ever validated."""
    earlier = [entry for entry in validations if entry["task_id"] == task_id]
    if not earlier:
        return []
    latest = max(earlier, key=lambda entry: str(entry.get("validated_at") or ""))
    record = latest.get("record")
    before = record.get("files") if isinstance(record, dict) else None
    if not isinstance(before, dict) or not before:
        return ["(files not recorded by that validation)"]
    return changed_files(before, now.files)


def _split(file: Path) -> str | None:
    try:
        split = read_toml(file).get("split", "train")
    except SpecError:  # a task that does not load still has a standing
        return None
    return split if isinstance(split, str) else None


def _reasons(record: dict[str, Any]) -> list[str]:
    """`proof: reason` for each failed proof in a stored validation record."""
    proofs = record.get("proofs") if isinstance(record, dict) else None
    if not isinstance(proofs, dict):
        return []
    return [
        f"{name}: {reason}"
        for name, proof in proofs.items()
        if name != "live" and isinstance(proof, dict) and proof.get("status") == "failed"
        for reason in proof.get("reasons", [])
    ]
