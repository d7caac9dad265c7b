"""The Python SDK: drive one task run by hand, `with assay.open(world, task) as run: ...`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.errors import UsageError
from assay.runs.benchmark import Benchmark, open_benchmark
from assay.runs.handle import TaskRunHandle
from assay.runs.plan import new_id
from assay.score.result import TaskRunResult
from assay.taskrun.actions import AnyAction
from assay.taskrun.observation import Observation
from assay.taskrun.session import Session


class TaskRun:
    """A task run driven step by step; `finish` grades it and returns the result."""

    def __init__(
        self, benchmark: Benchmark, task_id: str, agent: str = "sdk", *, owned: bool = False
    ):
        if task_id not in benchmark.tasks:
            known = ", ".join(sorted(benchmark.tasks)) or "none"
            raise UsageError(f"task: unknown task {task_id!r} (tasks: {known})")
        self.benchmark = benchmark
        self.owned = owned  # opened for this task run alone, so closed with it
        self.task = benchmark.tasks[task_id]
        self.agent = agent
        self.id = new_id("tr")
        self.handle = TaskRunHandle(benchmark, self.task, run_id=self.id, agent=agent)
        self.observation: Observation = self.handle.observe()

    @property
    def session(self) -> Session:
        """The task run's session: its world, its customer, its turns."""
        return self.handle.session

    @property
    def result(self) -> TaskRunResult | None:
        """The result once graded; None while the run goes on."""
        return self.handle.result

    def act(self, action: AnyAction | dict[str, Any]) -> Observation:
        self.observation = self.handle.act(action)
        return self.observation

    def call(self, tool: str, **args: Any) -> Observation:
        self.observation = self.handle.call(tool, **args)
        return self.observation

    def say(self, text: str) -> Observation:
        self.observation = self.handle.say(text)
        return self.observation

    def finish(self, output: str = "") -> TaskRunResult:
        return self.handle.finish(output)

    def grade(self) -> TaskRunResult:
        """Grade however the run ended (ending it as cancelled if it is still going)."""
        return self.handle.grade()

    def close(self) -> None:
        self.handle.conclude()
        if self.owned:
            self.benchmark.close()

    def __enter__(self) -> TaskRun:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def open(world: str | Path | Benchmark, task: str, *, agent: str = "sdk") -> TaskRun:
    """Start a task run of `task` in `world` (a directory or an opened benchmark)."""
    if isinstance(world, Benchmark):
        return TaskRun(world, task, agent)
    benchmark = open_benchmark(world)
    try:
        return TaskRun(benchmark, task, agent, owned=True)
    except BaseException:
        benchmark.close()
        raise
