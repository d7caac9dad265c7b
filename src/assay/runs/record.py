"""Benchmark runs kept in the store: record one as it runs, resume one, read one back."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import suppress

from assay.errors import UsageError
from assay.runs.aggregate import Figures, aggregate
from assay.runs.benchmark import Benchmark
from assay.runs.config import StoredConfig
from assay.runs.execute import Executor
from assay.runs.plan import PlannedRun, new_id
from assay.runs.run import BenchmarkOutcome, BenchmarkRunResult, execute
from assay.runs.store import RunRecord, Store
from assay.score.result import TaskRunResult
from assay.taskrun.agents.resolve import agent_factory, check_agent_for

OnResult = Callable[[TaskRunResult], None]


def record_run(
    store: Store,
    benchmark: Benchmark,
    agent: str,
    planned: Sequence[PlannedRun],
    *,
    repeats: int = 1,
    scored: bool = False,
    executor: Executor | None = None,
    on_result: OnResult | None = None,
    results: bool = True,
    config: StoredConfig | None = None,
) -> BenchmarkOutcome:
    """Create the run with a row per planned task run, then run it, storing each result as it ends.
    With `results` false the outcome holds no task runs: read them with `Store.each_result`;
    `config`: how the run was made, stored with it."""
    run_id = new_id("br")
    world = benchmark.world
    store.create_benchmark_run(
        run_id,
        world=world.name,
        world_version=world.version,
        world_path=str(world.root.resolve()),
        agent=agent,
        repeats=repeats,
        planned=planned,
        splits={task_id: task.split for task_id, task in benchmark.tasks.items()},
        scored=scored,
        verifier_mode=world.verifier_mode,
        config=None if config is None else config.model_dump(mode="json"),
    )
    return continue_run(
        store, benchmark, run_id, agent, planned, executor, on_result, results, fresh=True
    )


def resume_plan(store: Store, benchmark: Benchmark, record: RunRecord) -> list[PlannedRun]:
    """The run's task runs that are missing or not scored, to run again under their own ids."""
    world = benchmark.world
    if (world.name, world.version) != (record.world, record.world_version):
        raise UsageError(
            f"--resume: run {record.id} is of world {record.world}@{record.world_version}, "
            f"not {world.name}@{world.version}"
        )
    if world.verifier_mode != record.verifier_mode:
        raise UsageError(
            f"--resume: run {record.id} verifies with {record.verifier_mode}, but its world was "
            f"loaded with {world.verifier_mode}"
        )
    made = agent_factory(record.agent)
    redo = [
        state
        for state in store.task_states(record.id)
        if state.phase != "completed" or state.outcome == "not_scored"
    ]
    for task_id in dict.fromkeys(state.task_id for state in redo):
        task = benchmark.tasks.get(task_id)
        if task is None:
            raise UsageError(f"--resume: task {task_id} of run {record.id} is not in {world.name}")
        check_agent_for(record.agent, task, made)
    return [PlannedRun(state.id, state.task_id, state.repeat) for state in redo]


def continue_run(
    store: Store,
    benchmark: Benchmark,
    run_id: str,
    agent: str,
    planned: Sequence[PlannedRun],
    executor: Executor | None = None,
    on_result: OnResult | None = None,
    results: bool = True,
    *,
    fresh: bool = False,
) -> BenchmarkOutcome:
    """Run planned task runs into a stored run, then mark the run completed, cancelled or failed.
    Marks and results are committed in batches (`assay.runs.store.batch`); no result stays in
    memory while it runs, and with `results` false none is read back either (see
    `Store.each_result`). `fresh`: the run was just created, so no task run has a result yet."""
    from assay.runs.store.batch import BatchWriter

    store.start_benchmark_run(run_id)
    writer = BatchWriter(store, run_id, replacing=not fresh)  # fresh: nothing stored to replace

    def begin(run: PlannedRun) -> None:
        writer.started(run.id)

    def save(result: TaskRunResult) -> None:
        writer.finished(result)
        if on_result is not None:
            on_result(result)

    try:
        try:
            _, phase = execute(
                benchmark,
                agent,
                planned,
                executor=executor,
                on_result=save,
                on_start=begin,
                keep=False,
            )
        except BaseException:
            with suppress(Exception):  # what finished is committed; the error that stopped it wins
                writer.close()
            raise
        writer.close()
    except BaseException:
        with suppress(Exception):  # the error that stopped the run matters more than this one
            _finish(store, run_id, "cancelled", "failed")
        raise
    figures = _finish(store, run_id, phase, phase)
    return load_outcome(
        store, run_id, trajectories=True, reveal=True, results=results, figures=figures
    )


def _finish(store: Store, run_id: str, phase: str, status: str) -> Figures:
    figures = aggregate(store.task_rows(run_id))
    store.finish_benchmark_run(
        run_id, phase=phase, status=status, figures=figures.model_dump(mode="json")
    )
    return figures


def load_outcome(
    store: Store,
    run_id: str,
    *,
    task: str | None = None,
    trajectories: bool = False,
    reveal: bool = False,
    results: bool = True,
    figures: Figures | None = None,
) -> BenchmarkOutcome:
    """A stored run with figures over its finished task runs (`figures`: already worked out); a
    scored one hides details unless revealed. With `results` false, the figures alone."""
    record = store.benchmark_run(run_id)
    if figures is None:
        figures = aggregate(store.task_rows(record.id))
    found = store.results(record.id, task=task, trajectories_too=trajectories) if results else []
    if record.scored and not reveal:
        found = [result.redacted() for result in found]
    return BenchmarkOutcome(benchmark_run=benchmark_result(record, figures), task_runs=found)


def benchmark_result(record: RunRecord, figures: Figures) -> BenchmarkRunResult:
    return BenchmarkRunResult(
        **figures.model_dump(),
        id=record.id,
        world=record.world,
        world_version=record.world_version,
        agent=record.agent,
        repeats=record.repeats,
        tasks=record.tasks,
        task_runs=record.task_runs,
        phase=record.phase,
        status=record.status,
        scored_run=record.scored,
        verifier_mode=record.verifier_mode,
        started_at=record.started_at,
        finished_at=record.finished_at,
        config=record.config,
    )
