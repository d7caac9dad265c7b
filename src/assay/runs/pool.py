"""Task runs in a pool of worker processes (spawn); each worker loads the world once.

A worker gets the world's path, the agent's name and each PlannedRun, and sends back the
TaskRunResult as JSON, so results are the same whatever the number of workers.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass

from assay.runs.benchmark import Benchmark, open_benchmark
from assay.runs.execute import OnResult, SerialExecutor
from assay.runs.plan import PlannedRun
from assay.runs.taskrun import run_task
from assay.score.result import TaskRunResult
from assay.taskrun.agents.resolve import agent_factory


@dataclass(frozen=True)
class WorkerSetup:
    world: str
    world_db: str | None
    agent: str


_loaded: tuple[Benchmark, object] | None = None


def _start_worker(setup: WorkerSetup) -> None:
    """Load the world once per worker; Ctrl-C is the parent's to handle."""
    global _loaded
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    benchmark = open_benchmark(setup.world, world_db=setup.world_db)
    _loaded = (benchmark, agent_factory(setup.agent))


def _run_planned(agent: str, run: PlannedRun) -> str:
    assert _loaded is not None, "the worker was not started"
    benchmark, make_agent = _loaded
    task = benchmark.tasks[run.task_id]
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

    def __init__(self, workers: int):
        self.workers = workers

    def execute(
        self, benchmark: Benchmark, agent: str, planned: Sequence[PlannedRun], on_result: OnResult
    ) -> None:
        setup = WorkerSetup(str(benchmark.world.root), benchmark.world.world_db, agent)
        pool = ProcessPoolExecutor(
            max_workers=min(self.workers, len(planned)),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(setup,),
        )
        pending: set[Future[str]] = set()
        try:
            pending = {pool.submit(_run_planned, agent, run) for run in planned}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    on_result(TaskRunResult.model_validate_json(future.result()))
        except KeyboardInterrupt:
            _finish_running(pool, pending, on_result)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _finish_running(
    pool: ProcessPoolExecutor, pending: set[Future[str]], on_result: OnResult
) -> None:
    """Cancel what has not started; keep what is running; a second Ctrl-C stops it too."""
    for future in pending:
        future.cancel()
    running = [future for future in pending if not future.cancelled()]
    try:
        for future in running:
            try:
                on_result(TaskRunResult.model_validate_json(future.result()))
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


def executor_for(workers: int | None, runs: int) -> SerialExecutor | ProcessExecutor:
    """One process for one worker (or one task run); a pool otherwise. None: one per core."""
    count = workers if workers is not None else (os.cpu_count() or 1)
    if count <= 1 or runs <= 1:
        return SerialExecutor()
    return ProcessExecutor(count)
