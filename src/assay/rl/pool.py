"""The tasks an RL environment draws from, the world they run in, and where their results go."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from assay.errors import UsageError
from assay.formats.task import TaskSpec
from assay.rl.episode import Episode
from assay.rl.recorder import Recorder
from assay.rl.tasks import choose_tasks
from assay.runs.benchmark import Benchmark, open_benchmark
from assay.runs.config import config_in_force
from assay.runs.plan import new_id
from assay.runs.store import Store
from assay.trust.withdrawn import withdrawn_on_file

Names = str | Sequence[str] | None
StoreChoice = bool | str | Path | None


class TaskPool:
    """Episodes of a world's chosen tasks; shared by every environment of one process is fine
    (each episode has a world of its own)."""

    def __init__(
        self,
        benchmark: Benchmark,
        tasks: Sequence[TaskSpec],
        *,
        agent: str,
        recorder: Recorder | None = None,
        owned: bool = False,
    ):
        self.benchmark, self.tasks, self.agent = benchmark, list(tasks), agent
        self.recorder, self.owned = recorder, owned
        self._repeats: Counter[str] = Counter()
        self._lock = threading.Lock()

    @classmethod
    def open(
        cls,
        world: str | Path | Benchmark,
        task: Names = None,
        split: Names = None,
        *,
        store: StoreChoice = None,
        include_withdrawn: bool = False,
        world_db: str | None = None,
        agent: str = "gym",
        names: tuple[str, str] = ("task", "split"),
    ) -> TaskPool:
        """Load `world` (unless given loaded) and choose its tasks (see `choose_tasks`).

        `store`: None or False keeps nothing; True the default records store; a URL or path that
        store; task runs then go into one benchmark run per pool.
        """
        owned = not isinstance(world, Benchmark)
        records: Store | None = None
        benchmark = world if isinstance(world, Benchmark) else None
        try:
            records = open_records(store)
            if not isinstance(world, Benchmark):
                withdrawn = _withdrawn(world, include_withdrawn, records) - set(_listed(task))
                benchmark = open_benchmark(world, world_db=world_db, left_out=withdrawn)
            assert benchmark is not None
            tasks = choose_tasks(
                benchmark.world,
                _listed(task),
                _listed(split),
                include_withdrawn=include_withdrawn,
                store=records,
                names=names,
            )
            recorder = None
            if records is not None:
                config = config_in_force(
                    agent=agent,
                    tasks=tuple(_listed(task)),
                    splits=tuple(_listed(split)),
                    include_withdrawn=include_withdrawn,
                    world_db=benchmark.world.world_db,
                )
                recorder = Recorder(records, benchmark.world, agent, config)
        except BaseException:
            if records is not None:
                records.close()
            if owned and benchmark is not None:
                benchmark.close()
            raise
        return cls(benchmark, tasks, agent=agent, recorder=recorder, owned=owned)

    def pick(self, draw: Callable[[int], int], task_id: str | None = None) -> TaskSpec:
        """`task_id` if it is one of the pool's tasks, else the task at `draw(len(tasks))`."""
        if task_id is None:
            return self.tasks[draw(len(self.tasks))]
        for task in self.tasks:
            if task.id == task_id:
                return task
        known = ", ".join(task.id for task in self.tasks)
        raise UsageError(f"task: {task_id!r} is not one of this environment's tasks ({known})")

    def start(self, task: TaskSpec, run_id: str | None = None) -> Episode:
        with self._lock:
            repeat = self._repeats[task.id]
            self._repeats[task.id] += 1
        return Episode(
            self.benchmark,
            task,
            run_id=run_id or new_id("tr"),
            repeat=repeat,
            agent=self.agent,
            on_result=self.recorder.save if self.recorder else None,
        )

    def close(self) -> None:
        if self.recorder is not None:
            self.recorder.close()
            self.recorder = None
        if self.owned:
            self.benchmark.close()
            self.owned = False


def _withdrawn(world: str | Path, include: bool, store: Store | None) -> frozenset[str]:
    """The world's withdrawn tasks, not to be loaded (one may not load at all); none when the
    pool includes them."""
    return frozenset() if include else withdrawn_on_file(world, store=store)[0]


def _listed(names: Names) -> list[str]:
    if names is None:
        return []
    return [names] if isinstance(names, str) else list(names)


def open_records(store: StoreChoice) -> Store | None:
    """The records store `store` chooses: none for None or False, the default one for True, else
    the store at that URL or path."""
    if store is None or store is False:
        return None
    from assay.runs.store import open_store

    return open_store(None if store is True else str(store))
