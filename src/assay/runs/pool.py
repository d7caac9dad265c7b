"""Task runs in a pool of worker processes (spawn); each worker loads the world once.

A worker gets the world's path, the agent's name and each PlannedRun, says when it begins one
(its id on a queue the parent drains), and sends back the TaskRunResult as JSON, so results are
the same whatever the number of workers.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from multiprocessing.queues import SimpleQueue

from assay.runs.benchmark import Benchmark, open_benchmark
from assay.runs.execute import OnResult, OnStart, SerialExecutor
from assay.runs.plan import PlannedRun
from assay.runs.taskrun import run_task
from assay.score.result import TaskRunResult
from assay.taskrun.agents.isolated import DEFAULT_ACTION_TIMEOUT_S
from assay.taskrun.agents.resolve import agent_factory


@dataclass(frozen=True)
class WorkerSetup:
    world: str
    world_db: str | None
    agent: str
    action_timeout_s: float = DEFAULT_ACTION_TIMEOUT_S


POLL_S = 0.05  # how often the parent looks for task runs that workers have begun

_loaded: tuple[Benchmark, object, SimpleQueue[str]] | None = None


def _start_worker(setup: WorkerSetup, started: SimpleQueue[str]) -> None:
    """Load the world once per worker; Ctrl-C is the parent's to handle."""
    global _loaded
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent.sentinel,), daemon=True).start()
    benchmark = open_benchmark(setup.world, world_db=setup.world_db)
    # a class agent's process is started here, once, and lives as long as the worker
    make_agent = agent_factory(setup.agent, action_timeout_s=setup.action_timeout_s)
    _loaded = (benchmark, make_agent, started)


def _end_with(parent_sentinel: int) -> None:
    """A worker whose parent is gone (killed outright) has nobody to report to: it ends too."""
    multiprocessing.connection.wait([parent_sentinel])
    os._exit(1)


def _run_planned(agent: str, run: PlannedRun) -> str:
    assert _loaded is not None, "the worker was not started"
    benchmark, make_agent, started = _loaded
    task = benchmark.tasks[run.task_id]
    started.put(run.id)  # written to the pipe now, so it is there before the result
    result = run_task(
        benchmark,
        task,
        make_agent(task),  # type: ignore[operator]
        run_id=run.id,
        repeat=run.repeat,
        agent_name=agent,
    )
    return result.model_dump_json()


class ProcessExecutor:
    """Up to `workers` task runs at once, each in a process of its own."""

    def __init__(self, workers: int, action_timeout_s: float = DEFAULT_ACTION_TIMEOUT_S):
        self.workers = workers
        self.action_timeout_s = action_timeout_s

    def execute(
        self,
        benchmark: Benchmark,
        agent: str,
        planned: Sequence[PlannedRun],
        on_result: OnResult,
        on_start: OnStart,
    ) -> None:
        world = benchmark.world
        setup = WorkerSetup(str(world.root), world.world_db, agent, self.action_timeout_s)
        context = multiprocessing.get_context("spawn")
        starts = _Starts(context.SimpleQueue(), {run.id: run for run in planned}, on_start)
        pool = ProcessPoolExecutor(
            max_workers=min(self.workers, len(planned)),
            mp_context=context,
            initializer=_start_worker,
            initargs=(setup, starts.queue),
        )
        pending: set[Future[str]] = set()
        try:
            pending = {pool.submit(_run_planned, agent, run) for run in planned}
            while pending:
                done, pending = wait(pending, timeout=POLL_S, return_when=FIRST_COMPLETED)
                starts.report()
                for future in done:
                    starts.finished(TaskRunResult.model_validate_json(future.result()), on_result)
        except KeyboardInterrupt:
            _finish_running(pool, pending, starts, on_result)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            starts.queue.close()


@dataclass
class _Starts:
    """The ids workers put on `queue` as they begin task runs, handed on to `on_start` once each."""

    queue: SimpleQueue[str]
    planned: dict[str, PlannedRun]
    on_start: OnStart
    reported: set[str] = field(default_factory=set)

    def report(self) -> None:
        while not self.queue.empty():
            self._started(self.queue.get())

    def finished(self, result: TaskRunResult, on_result: OnResult) -> None:
        """A result, after the start of its task run (reported now if the queue had not said)."""
        self.report()
        self._started(result.id)
        on_result(result)

    def _started(self, run_id: str) -> None:
        if run_id not in self.reported:
            self.reported.add(run_id)
            self.on_start(self.planned[run_id])


def _finish_running(
    pool: ProcessPoolExecutor, pending: set[Future[str]], starts: _Starts, on_result: OnResult
) -> None:
    """Cancel what has not started; keep what is running; a second Ctrl-C stops it too."""
    for future in pending:
        future.cancel()
    running = [future for future in pending if not future.cancelled()]
    try:
        for future in running:
            try:
                starts.finished(TaskRunResult.model_validate_json(future.result()), on_result)
            except KeyboardInterrupt:
                raise
            except Exception:
                continue  # a run that broke while stopping is not a finished task run
    except KeyboardInterrupt:
        _terminate(pool)
        raise


def _terminate(pool: ProcessPoolExecutor) -> None:
    stop = getattr(pool, "terminate_workers", None)  # Python 3.14 and later
    if stop is not None:
        stop()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()


def executor_for(
    workers: int | None, runs: int, action_timeout_s: float = DEFAULT_ACTION_TIMEOUT_S
) -> SerialExecutor | ProcessExecutor:
    """One process for one worker (or one task run); a pool otherwise. None: one per core."""
    count = workers if workers is not None else (os.cpu_count() or 1)
    if count <= 1 or runs <= 1:
        return SerialExecutor(action_timeout_s)
    return ProcessExecutor(count, action_timeout_s)
