"""Executors run planned task runs; the loop does not care whether they run here or elsewhere."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from assay.runs.benchmark import Benchmark
from assay.runs.plan import PlannedRun
from assay.runs.taskrun import run_task
from assay.score.result import TaskRunResult
from assay.taskrun.agents.resolve import agent_factory

OnResult = Callable[[TaskRunResult], None]


class Executor(Protocol):
    def execute(
        self, benchmark: Benchmark, agent: str, planned: Sequence[PlannedRun], on_result: OnResult
    ) -> None:
        """Run every planned task run and hand each result to `on_result` as it finishes."""
        ...


class SerialExecutor:
    """One task run after another, in this process."""

    def execute(
        self, benchmark: Benchmark, agent: str, planned: Sequence[PlannedRun], on_result: OnResult
    ) -> None:
        make_agent = agent_factory(agent)
        for run in planned:
            task = benchmark.tasks[run.task_id]
            result = run_task(
                benchmark,
                task,
                make_agent(task),
                run_id=run.id,
                repeat=run.repeat,
                agent_name=agent,
            )
            on_result(result)
