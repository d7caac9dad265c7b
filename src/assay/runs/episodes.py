"""Failed episodes for the improvement step: task runs of train and dev tasks that did not pass,
with their trajectories and check details. Holdout is never given out, whatever asks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assay.errors import UsageError
from assay.runs.export import export_rows
from assay.runs.store import RunRecord, Store

IMPROVEMENT_SPLITS = ("train", "dev")
HOLDOUT_REFUSED = "holdout episodes are never given to the improvement step; use train and dev"
NOT_FAILED = ("verified", "not_scored")  # a not-scored task run failed the world, not the agent
MANY_RUNS = 100_000


def improvement_splits(splits: Sequence[str] | None, field: str = "--split") -> list[str]:
    """The splits asked for (default train and dev); holdout or an unknown split is refused."""
    chosen = [part.strip() for split in splits or IMPROVEMENT_SPLITS for part in split.split(",")]
    if "holdout" in chosen:
        raise HoldoutRefused(f"{field}: {HOLDOUT_REFUSED}")
    unknown = [split for split in chosen if split not in IMPROVEMENT_SPLITS]
    if unknown:
        raise UsageError(f"{field}: {unknown[0]!r} is not train or dev")
    return list(dict.fromkeys(chosen))


class HoldoutRefused(UsageError):
    """Holdout episodes were asked for."""


def failed_episodes(
    store: Store,
    splits: Sequence[str] | None = None,
    *,
    run_id: str | None = None,
    world: str | None = None,
) -> list[dict[str, Any]]:
    """One row per failed task run (the export row, plus world, checks and trajectory)."""
    chosen = improvement_splits(splits)
    runs: list[RunRecord] = (
        [store.benchmark_run(run_id)] if run_id is not None else store.recent(MANY_RUNS)
    )
    rows = []
    for run in runs:
        if world is not None and run.world != world:
            continue
        failed = [
            result
            for result in store.results(run.id, trajectories_too=True)
            if result.split in chosen
            and result.status not in ("cancelled", "active")
            and result.outcome not in NOT_FAILED
        ]
        for row, result in zip(export_rows(run.id, failed, trajectories=True), failed, strict=True):
            rows.append(
                {
                    "world": f"{run.world}@{run.world_version}",
                    **row,
                    "checks": [check.as_json() for check in result.checks],
                }
            )
    return rows
