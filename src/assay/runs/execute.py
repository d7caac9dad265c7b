"""Executors run planned task runs; the loop does not care whether they run here or elsewhere."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from assay.runs.benchmark import Benchmark
from assay.runs.plan import PlannedRun
from assay.runs.taskrun import run_task
from assay.score.result import TaskRunResult
from assay.taskrun.agents.isolated import DEFAULT_ACTION_TIMEOUT_S
from assay.taskrun.agents.resolve import agent_factory, close_agents

OnResult = Callable[[TaskRunResult], None]
OnStart = Callable[[PlannedRun], None]


class Executor(Protocol):
    def execute(
        self,
        benchmark: Benchmark,
        agent: str,
        planned: Sequence[PlannedRun],
        on_result: OnResult,
        on_start: OnStart,
    ) -> None:
        """Run every planned task run: `on_start(run)` as one begins, `on_result(result)` as it
        finishes (always in that order, each once, in the calling thread)."""
        ...


class SerialExecutor:
    """One task run after another, in this process (a Python class agent in one process of its
    own, kept for them all); `action_timeout_s` bounds each action of such an agent."""

    def __init__(self, action_timeout_s: float = DEFAULT_ACTION_TIMEOUT_S):
        self.action_timeout_s = action_timeout_s

    def execute(
        self,
        benchmark: Benchmark,
        agent: str,
        planned: Sequence[PlannedRun],
        on_result: OnResult,
        on_start: OnStart,
    ) -> None:
        make_agent = agent_factory(agent, action_timeout_s=self.action_timeout_s)
        try:
            for run in planned:
                task = benchmark.tasks[run.task_id]
                on_start(run)
                result = run_task(
                    benchmark,
                    task,
                    make_agent(task),
                    run_id=run.id,
                    repeat=run.repeat,
                    agent_name=agent,
                )
                on_result(result)
        finally:
            close_agents(make_agent)
