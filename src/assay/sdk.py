"""The Python SDK: drive one task run by hand, `with assay.open(world, task) as run: ...`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import UsageError
from assay.runs.benchmark import Benchmark, open_benchmark
from assay.runs.handle import TaskRunHandle
from assay.runs.plan import new_id
from assay.score.result import TaskRunResult
from assay.taskrun.actions import AnyAction
from assay.taskrun.observation import Observation
from assay.taskrun.session import Session

if TYPE_CHECKING:
    from assay.rl.pool import StoreChoice
    from assay.rl.recorder import Recorder


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


def open(
    world: str | Path | Benchmark, task: str, *, agent: str = "sdk", store: StoreChoice = None
) -> TaskRun:
    """Start a task run of `task` in `world` (a directory or an opened benchmark).

    `store`: None or False keeps nothing; True the default records store, a URL or path that
    store: the task run is kept there, once it ends, as a benchmark run of its own with the
    configuration it was made with (`assay show` prints it).
    """
    owned = not isinstance(world, Benchmark)
    benchmark = open_benchmark(world) if not isinstance(world, Benchmark) else world
    try:
        if store is None or store is False:
            return TaskRun(benchmark, task, agent, owned=owned)
        return RecordedTaskRun(benchmark, task, agent, owned=owned, store=store)
    except BaseException:
        if owned:
            benchmark.close()
        raise


class RecordedTaskRun(TaskRun):
    """A task run kept in a records store once it ends, as a benchmark run of its own (created
    when the task run starts) with its configuration: the agent, the task, the settings in force."""

    def __init__(
        self, benchmark: Benchmark, task_id: str, agent: str, *, owned: bool, store: StoreChoice
    ):
        from assay.rl.pool import open_records
        from assay.rl.recorder import Recorder
        from assay.runs.config import config_in_force

        super().__init__(benchmark, task_id, agent, owned=owned)
        world, records = benchmark.world, None
        try:
            records = open_records(store)
            assert records is not None
            config = config_in_force(agent=agent, tasks=(task_id,), world_db=world.world_db)
            self.recorder: Recorder | None = Recorder(records, world, agent, config)
            self.benchmark_run_id = self.recorder.run_id  # `assay show` it once the run ends
        except BaseException:
            if records is not None:
                records.close()
            self.handle.close()
            raise

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self.recorder is not None:
                recorder, self.recorder = self.recorder, None
                if self.handle.result is not None:
                    recorder.save(self.handle.result)
                recorder.close()
