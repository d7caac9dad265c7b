"""What keys may read besides their runs: the served worlds (any key); a world's tasks, validation
and build records, and failed train and dev episodes (build and admin keys). Holdout tasks and
builds are the admin's alone; holdout episodes are given to nobody."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from assay.api.dependencies import AnyKey, Builder
from assay.errors import UsageError
from assay.runs.benchmark import Benchmark
from assay.runs.episodes import HoldoutRefused, failed_episodes
from assay.served.auth import Caller
from assay.served.errors import ApiError, ErrorBody
from assay.trust.withdrawn import world_states

router = APIRouter(prefix="/v1", tags=["worlds"])
RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody} for status in (400, 401, 403, 404, 413, 422)
}


def _benchmark(request: Request, slug: str) -> Benchmark:
    return request.app.state.context.catalog.find(slug)


def _visible_splits(caller: Caller) -> tuple[str, ...]:
    return ("train", "dev", "holdout") if caller.operator else ("train", "dev")


@router.get("/worlds", responses=RESPONSES)
async def list_worlds(request: Request, _: AnyKey) -> dict[str, Any]:
    """The served worlds, with how many tasks each split holds."""
    served = []
    for slug, benchmark in request.app.state.context.catalog.benchmarks.items():
        counts: dict[str, int] = {"train": 0, "dev": 0, "holdout": 0}
        for task in benchmark.tasks.values():
            counts[task.split] = counts.get(task.split, 0) + 1
        world = benchmark.world
        served.append({"benchmark": slug, "description": world.spec.description, "tasks": counts})
    return {"data": served}


@router.get("/worlds/{benchmark}/tasks", responses=RESPONSES)
async def list_tasks(benchmark: str, request: Request, who: Builder) -> dict[str, Any]:
    """The world's tasks in full (request, checks, solutions); holdout ones for the admin only."""
    found = _benchmark(request, benchmark)
    splits = _visible_splits(who)
    return {
        "data": [
            {"id": task.id, **task.model_dump(mode="json", exclude={"id"})}
            for task in found.tasks.values()
            if task.split in splits
        ]
    }


@router.get("/worlds/{benchmark}/validation", responses=RESPONSES)
async def validation(benchmark: str, request: Request, who: Builder) -> dict[str, Any]:
    """Each task's validation standing and why, from the store (nothing is run)."""
    found = _benchmark(request, benchmark)
    states = world_states(found.world.root, (), request.app.state.context.store)
    splits = _visible_splits(who)
    return {"data": [state.model_dump(mode="json") for state in states if state.split in splits]}


@router.get("/worlds/{benchmark}/builds", responses=RESPONSES)
async def builds(benchmark: str, request: Request, who: Builder) -> dict[str, Any]:
    """The world's build records, newest first: drafts, verdicts, repairs."""
    found = _benchmark(request, benchmark)
    records = request.app.state.context.store.builds_of(found.world.name, limit=50)
    splits = _visible_splits(who)
    return {"data": [record for record in records if record.get("split") in splits]}


class EpisodeQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    benchmark: str | None = Field(None, description="`world@version`; default: every world")
    split: list[str] | None = Field(None, description="train, dev (default both); never holdout")


@router.get("/episodes", responses=RESPONSES)
async def episodes(
    request: Request, _: Builder, query: Annotated[EpisodeQuery, Query()]
) -> dict[str, Any]:
    """Failed episodes of train and dev tasks, with trajectories and check details; asking for
    holdout is refused, whatever the key."""
    context = request.app.state.context
    found = query.benchmark
    world = _benchmark(request, found).world.name if found is not None else None
    try:
        rows = failed_episodes(context.store, query.split, world=world)
    except HoldoutRefused as refused:
        raise ApiError(403, "holdout_refused", str(refused).removeprefix("--")) from None
    except UsageError as error:
        raise ApiError(422, "invalid_request", str(error).removeprefix("--")) from None
    return {"data": rows}
