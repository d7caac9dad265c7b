"""Benchmark runs over HTTP: create one (with its bearer token and its configuration), read it,
cancel it, finish it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.errors import UsageError
from assay.runs.aggregate import Figures
from assay.runs.config import StoredConfig, config_in_force, stored_config
from assay.runs.plan import DEFAULT_SPLITS, PlannedRun, new_id, plan, select_tasks
from assay.runs.run import always_scored
from assay.served.auth import Caller
from assay.served.context import Context
from assay.served.errors import ApiError
from assay.served.finishing import FINISHED, finish_run
from assay.served.surfaces import listener_endpoints, service_endpoints
from assay.served.task_runs import cancel_task_run
from assay.served.views import completion
from assay.served.wire import (
    BenchmarkRef,
    BenchmarkRunOut,
    CreateRun,
    RunCreated,
    TaskRunLink,
    TaskRunOut,
)
from assay.trust.withdrawn import withdrawn_among

if TYPE_CHECKING:
    from assay.formats.task import TaskSpec
    from assay.world.live import World


def create_run(context: Context, caller: Caller, body: CreateRun) -> RunCreated:
    """Plan the task runs (withdrawn tasks left out), store the run with its configuration and
    issue its token; an evaluate key's runs are scored."""
    if caller.scope == "evaluate" and body.scored is False:
        raise ApiError(403, "forbidden", "scored: an evaluate key creates scored runs only")
    benchmark = context.catalog.find(body.benchmark, body.verifier_mode)
    world = benchmark.world
    tasks, planned = _planned(context, world, body)
    run_id = new_id("br")
    asked = bool(body.scored) or caller.scope == "evaluate"
    scored = asked or always_scored(benchmark, planned)
    context.store.create_benchmark_run(
        run_id,
        world=world.name,
        world_version=world.version,
        world_path=str(world.root.resolve()),
        agent=body.agent,
        repeats=body.repeats,
        planned=planned,
        splits={task.id: task.split for task in tasks},
        scored=scored,
        key_id=caller.key_id,
        verifier_mode=body.verifier_mode,
        config=_config(world, body, asked).model_dump(mode="json"),
    )
    token, expires = context.auth.issue(run_id)
    return RunCreated(
        benchmark_run_id=run_id,
        benchmark=_benchmark_ref(world.name, world.version),
        scored=scored,
        verifier_mode=body.verifier_mode,
        phase="created",
        bearer_token=token,
        bearer_token_expires_at=expires,
        endpoints=_endpoints(context, world, run_id),
        task_runs=[_link(world, run) for run in planned],
    )


def _planned(
    context: Context, world: World, body: CreateRun
) -> tuple[list[TaskSpec], list[PlannedRun]]:
    """The tasks `body` chooses and the task runs planned of them, withdrawn tasks left out;
    ApiError 422 for an unknown task or when none is left to run."""
    unknown = [task_id for task_id in body.tasks or () if task_id not in world.tasks]
    if unknown:
        raise ApiError(422, "unknown_task", f"tasks: no task {unknown[0]!r} in {body.benchmark}")
    splits = body.split or list(DEFAULT_SPLITS)
    try:
        tasks = select_tasks(world, body.tasks or (), splits)
    except UsageError as error:
        raise ApiError(422, "invalid_request", str(error).replace("--task", "tasks")) from None
    withdrawn = {state.task_id for state in withdrawn_among(world, tasks, context.store)}
    planned = plan([task for task in tasks if task.id not in withdrawn], body.repeats)
    if not planned:
        raise ApiError(422, "no_tasks", "no task to run: none matches, or all are withdrawn")
    return tasks, planned


def _config(world: World, body: CreateRun, scored: bool) -> StoredConfig:
    """How the run is made: what `body` chose, and the settings in force in the server."""
    config = config_in_force(
        agent=body.agent,
        tasks=tuple(body.tasks or ()),
        splits=tuple(body.split or ()),
        repeats=body.repeats,
        scored=scored,
        verifier_mode=body.verifier_mode,
        world_db=world.world_db,
    )
    return stored_config(config, world.files_digest)


def _endpoints(context: Context, world: World, run_id: str) -> dict[str, str]:
    kinds = [kind for kind, _ in world.services.values()]
    return {
        "benchmark_run": f"/v1/benchmark-runs/{run_id}",
        "cancel": f"/v1/benchmark-runs/{run_id}/cancel",
        "task_run": "/v1/task-runs/{task_run_id}",
        "act": "/v1/task-runs/{task_run_id}/act",
        "mcp": "/v1/task-runs/{task_run_id}/mcp",
        "criterion_runs": "/v1/criterion-runs?task_run_id={task_run_id}",
        **service_endpoints(run_id, kinds),
        **listener_endpoints(context, run_id, {kind.kind for kind in kinds}),
    }


def _link(world: World, run: PlannedRun) -> TaskRunLink:
    return TaskRunLink(
        id=run.id,
        task_id=run.task_id,
        name=world.tasks[run.task_id].title,
        repeat=run.repeat,
        phase="created",
        start_url=f"/v1/task-runs/{run.id}/start",
        act_url=f"/v1/task-runs/{run.id}/act",
        complete_url=f"/v1/task-runs/{run.id}/complete",
        mcp_url=f"/v1/task-runs/{run.id}/mcp",
    )


def view_run(context: Context, caller: Caller, run_id: str) -> BenchmarkRunOut:
    """The run with its task runs, and its aggregate once every task run has finished."""
    record = context.record(caller, run_id)
    results = {result.id: result for result in context.store.results(run_id)}
    titles = context.run_info(run_id).benchmark.tasks
    task_runs = []
    for state in context.store.task_states(run_id):
        result = results.get(state.id)
        task = titles.get(state.task_id)
        task_runs.append(
            TaskRunOut(
                id=state.id,
                benchmark_run_id=run_id,
                task_id=state.task_id,
                name=task.title if task else state.task_id,
                repeat=state.repeat,
                phase=state.phase,
                status=state.status,
                result=None
                if result is None
                else completion(result, [], hide=context.hides(caller, run_id, state.task_id)),
            )
        )
    figures = Figures.model_validate(record.figures) if record.phase in FINISHED else None
    return BenchmarkRunOut(
        id=record.id,
        benchmark=_benchmark_ref(record.world, record.world_version),
        agent=record.agent,
        scored=record.scored,
        verifier_mode=record.verifier_mode,
        phase=record.phase,
        status=record.status,
        created_at=record.created_at,
        started_at=record.started_at,
        finished_at=record.finished_at,
        task_runs=task_runs,
        aggregate=figures,
    )


def cancel_run(context: Context, caller: Caller, run_id: str) -> BenchmarkRunOut:
    """Cancel every unfinished task run; finished ones are kept and aggregated."""
    record = context.record(caller, run_id)
    if record.phase in FINISHED:
        raise ApiError(409, record.phase, f"benchmark run {run_id} is already {record.phase}")
    for task_run_id in context.progress.unfinished(run_id):
        cancel_task_run(context, caller, task_run_id, finish_run=False)
    finish_run(context, record, "cancelled")
    return view_run(context, caller, run_id)


def _benchmark_ref(name: str, version: str) -> BenchmarkRef:
    return BenchmarkRef(slug=f"{name}@{version}", version=version, name=name)
