"""A benchmark run: plan the task runs, execute them, aggregate the results."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any, Literal

from pydantic import BaseModel

from assay.errors import UsageError
from assay.formats.verifier_choice import VerifierChoice
from assay.runs.aggregate import Figures, aggregate
from assay.runs.benchmark import Benchmark
from assay.runs.execute import Executor, SerialExecutor
from assay.runs.plan import DEFAULT_SPLITS, PlannedRun, new_id, plan, select_tasks
from assay.runs.stamps import now
from assay.score.result import TaskRunResult
from assay.taskrun.agents.given import GivenAgent, given_factory, given_name
from assay.taskrun.agents.names import parse_agent
from assay.taskrun.agents.resolve import agent_factory, check_agent_for
from assay.world.load import require_tasks


class BenchmarkRunResult(Figures):
    id: str
    world: str
    world_version: str
    agent: str
    repeats: int
    tasks: int
    task_runs: int
    phase: Literal["created", "started", "completed", "cancelled"]
    status: Literal["active", "completed", "cancelled", "failed"]
    scored_run: bool = False  # details and evidence stay hidden unless revealed
    # how its container-format tasks were verified: each task's own mode, or separate for all
    verifier_mode: VerifierChoice = "task"
    started_at: str | None
    finished_at: str | None
    # how it was made (`runs.config.StoredConfig` as JSON); None for a run stored without one
    config: dict[str, Any] | None = None


class BenchmarkOutcome(BaseModel, defer_build=True):
    benchmark_run: BenchmarkRunResult
    task_runs: list[TaskRunResult]

    def redacted(self) -> BenchmarkOutcome:
        """What may be shown of a scored run: each check's details and evidence dropped."""
        if not self.benchmark_run.scored_run:
            return self
        return self.model_copy(update={"task_runs": [run.redacted() for run in self.task_runs]})

    def as_json(self, *, trajectories: bool = True) -> dict[str, Any]:
        return {
            "benchmark_run": self.benchmark_run.model_dump(mode="json"),
            "task_runs": [run.as_json(trajectory=trajectories) for run in self.task_runs],
        }


def prepare(
    benchmark: Benchmark,
    agent: str | GivenAgent,
    task_ids: Sequence[str] = (),
    splits: Sequence[str] = DEFAULT_SPLITS,
    repeats: int = 1,
    *,
    leave_out: Collection[str] = (),
) -> list[PlannedRun]:
    """The planned task runs, less the tasks in `leave_out`; UsageError before anything runs if
    the agent cannot run a task."""
    if not isinstance(agent, str):
        return _plan_given(benchmark, agent, task_ids, splits, repeats, leave_out)
    require_tasks(benchmark.world.root)
    if parse_agent(agent).kind == "cli" and not benchmark.world.kind.sandboxed:
        raise UsageError(f"--agent {agent}: CLI agents run container-format tasks only")
    made = agent_factory(agent)
    tasks = [t for t in select_tasks(benchmark.world, task_ids, splits) if t.id not in leave_out]
    for task in tasks:
        check_agent_for(agent, task, made)
    return plan(tasks, repeats)


def _plan_given(
    benchmark: Benchmark,
    agent: GivenAgent,
    task_ids: Sequence[str],
    splits: Sequence[str],
    repeats: int,
    leave_out: Collection[str],
) -> list[PlannedRun]:
    """The plan for an agent given as an object, which is refused now if it is none, and is
    taken as able to run every task."""
    given_factory(agent)
    require_tasks(benchmark.world.root)
    tasks = [t for t in select_tasks(benchmark.world, task_ids, splits) if t.id not in leave_out]
    return plan(tasks, repeats)


def always_scored(benchmark: Benchmark, planned: Sequence[PlannedRun]) -> bool:
    """A run with a holdout task in it is always scored."""
    return any(benchmark.tasks[run.task_id].split == "holdout" for run in planned)


def execute(
    benchmark: Benchmark,
    agent: str | GivenAgent,
    planned: Sequence[PlannedRun],
    *,
    executor: Executor | None = None,
    on_result: Callable[[TaskRunResult], None] | None = None,
    on_start: Callable[[PlannedRun], None] | None = None,
    keep: bool = True,
) -> tuple[list[TaskRunResult], Literal["completed", "cancelled"]]:
    """Run the planned task runs, results in planned order; Ctrl-C stops early as `cancelled`.

    `on_start(run)` is told as each task run begins, `on_result(result)` as it ends; with `keep`
    false no result is kept (the list is empty), so that memory does not grow with the run. An
    agent given as an object runs in this process: `executor` must be a SerialExecutor, if any.
    """
    results: list[TaskRunResult] = []

    def collect(result: TaskRunResult) -> None:
        if on_result is not None:
            on_result(result)
        if keep:
            results.append(result)

    phase: Literal["completed", "cancelled"] = "completed"
    try:
        if isinstance(agent, str):
            (executor or SerialExecutor()).execute(
                benchmark, agent, planned, collect, on_start or _unheeded
            )
        else:
            _in_this_process(executor).execute_made(
                benchmark,
                given_name(agent),
                given_factory(agent),
                planned,
                collect,
                on_start or _unheeded,
            )
    except KeyboardInterrupt:
        phase = "cancelled"
    order = {run.id: index for index, run in enumerate(planned)}
    results.sort(key=lambda result: order[result.id])
    return results, phase


def _unheeded(run: PlannedRun) -> None:
    """Nobody asked to be told when a task run begins."""


def _in_this_process(executor: Executor | None) -> SerialExecutor:
    """The executor for an agent given as an object, which cannot be sent to another process."""
    if executor is None:
        return SerialExecutor()
    if not isinstance(executor, SerialExecutor):
        raise UsageError(
            f"agent: an agent given as a Python object runs in this process, not in a "
            f"{type(executor).__name__}; name it as module:Class to run it in workers"
        )
    return executor


def run_benchmark(
    benchmark: Benchmark,
    agent: str | GivenAgent,
    planned: Sequence[PlannedRun],
    *,
    repeats: int = 1,
    executor: Executor | None = None,
    on_result: Callable[[TaskRunResult], None] | None = None,
    scored: bool = False,
    on_start: Callable[[PlannedRun], None] | None = None,
) -> BenchmarkOutcome:
    """A benchmark run held in memory only; `assay.runs.record` keeps one in the store. The
    results are whole even when `scored` (or when a holdout task is planned, which always scores):
    redact with `BenchmarkOutcome.redacted`.

    `agent` is an `--agent` string or an agent given as a Python object (`GivenAgent`: an `Agent`,
    its class, or a function `(task, repeat) -> Agent`), which runs in this process."""
    started = now()
    scored = scored or always_scored(benchmark, planned)
    results, phase = execute(
        benchmark, agent, planned, executor=executor, on_result=on_result, on_start=on_start
    )
    figures = aggregate(results)
    record = BenchmarkRunResult(
        **figures.model_dump(),
        id=new_id("br"),
        world=benchmark.world.name,
        world_version=benchmark.world.version,
        agent=agent if isinstance(agent, str) else given_name(agent),
        repeats=repeats,
        tasks=len({run.task_id for run in planned}),
        task_runs=len(planned),
        phase=phase,
        status=phase,
        started_at=started,
        finished_at=now(),
        scored_run=scored,
        verifier_mode=benchmark.world.verifier_mode,
    )
    return BenchmarkOutcome(benchmark_run=record, task_runs=results)
