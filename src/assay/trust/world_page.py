"""The world page: every task's validation standing, what the last build could not validate, the
baselines, and reset and isolation facts measured on the world."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from assay.errors import SpecError
from assay.trust.baseline import BaselineReport, check_baselines
from assay.trust.isolation import Fact, isolation_facts
from assay.trust.validate import open_for_validation
from assay.trust.withdrawn import TaskState, world_states

PageStanding = Literal["validated", "withdrawn", "never validated", "stale"]


class TaskEntry(BaseModel, defer_build=True):
    task_id: str
    split: str | None
    standing: PageStanding
    validated_at: str | None
    reasons: list[str]  # why its last validation failed (withdrawn)
    changed: list[str]  # the files changed since it was validated (stale)


class BaselineEntry(BaseModel, defer_build=True):
    task_id: str
    status: Literal["held", "changed", "none recorded", "task gone"]
    changes: list[str] = []


class WorldPage(BaseModel, defer_build=True):
    world: str
    version: str
    description: str
    tasks: list[TaskEntry]
    last_build: dict[str, Any] | None  # id, model, created_at, published, rejected
    baselines: list[BaselineEntry]
    baselines_error: str | None = None  # why the baselines could not be checked
    isolation: list[Fact]


def world_page(path: str | Path, store: Any) -> WorldPage:
    """Everything the page shows; runs the baselines' scripted solutions and the isolation probes."""
    benchmark, _ = open_for_validation(path)  # a task that does not load is listed, not fatal
    world = benchmark.world
    try:
        states = world_states(world.root, (), store)
        builds = store.builds_of(world.name, limit=1)
        try:
            baselines, baselines_error = (
                _baselines(check_baselines(world.root), list(world.tasks)),
                None,
            )
        except SpecError as error:
            baselines, baselines_error = [], str(error)
        return WorldPage(
            world=world.name,
            version=world.version,
            description=world.spec.description,
            tasks=[_entry(state) for state in states],
            last_build=_build_summary(builds[0]) if builds else None,
            baselines=baselines,
            baselines_error=baselines_error,
            isolation=isolation_facts(benchmark),
        )
    finally:
        benchmark.close()


def _entry(state: TaskState) -> TaskEntry:
    standing: PageStanding
    if state.standing != "unvalidated":
        standing = state.standing
    else:
        standing = "stale" if state.changed else "never validated"
    return TaskEntry(
        task_id=state.task_id,
        split=state.split,
        standing=standing,
        validated_at=state.validated_at,
        reasons=state.reasons,
        changed=state.changed,
    )


def _build_summary(record: dict[str, Any]) -> dict[str, Any]:
    keep = ("id", "model", "created_at", "split", "published", "rejected", "usage")
    return {name: record.get(name) for name in keep}


def _baselines(report: BaselineReport, task_ids: list[str]) -> list[BaselineEntry]:
    by_task: dict[str, list[str]] = {}
    for change in report.changes:
        by_task.setdefault(change.task_id, []).append(
            f"{change.run}: {change.change}" if change.run else change.change
        )
    entries = []
    for task_id in sorted({*task_ids, *by_task}):
        changes = by_task.get(task_id, [])
        if changes == ["no baseline recorded"]:
            entries.append(BaselineEntry(task_id=task_id, status="none recorded"))
        elif changes == ["baseline of a task that is gone"]:
            entries.append(BaselineEntry(task_id=task_id, status="task gone"))
        else:
            status = "changed" if changes else "held"
            entries.append(BaselineEntry(task_id=task_id, status=status, changes=changes))
    return entries
