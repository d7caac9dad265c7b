"""Executors run planned task runs; the loop does not care whether they run here or elsewhere.

A stop (the first Ctrl-C or SIGTERM) starts nothing new: the task runs in flight finish and are
reported, then the executor raises KeyboardInterrupt. A second one raises it at once.
"""

from __future__ import annotations

import itertools
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from assay.registry import Registry
from assay.runs.benchmark import Benchmark
from assay.runs.handle import run_task
from assay.runs.plan import PlannedRun
from assay.score.result import TaskRunResult
from assay.taskrun.agents.isolated import DEFAULT_ACTION_TIMEOUT_S
from assay.taskrun.agents.names import parse_agent
from assay.taskrun.agents.resolve import AgentFactory, agent_factory, close_agents

OnResult = Callable[[TaskRunResult], None]
OnStart = Callable[[PlannedRun], None]

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


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
        finishes (always in that order, each once, in the calling thread). Stopped before every
        one began, it raises KeyboardInterrupt once those in flight are reported."""
        ...


@dataclass
class Stop:
    """Asked for by the first Ctrl-C or SIGTERM; the second stops at once (KeyboardInterrupt)."""

    requested: bool = False

    def ask(self, _signal: int = 0, _frame: object = None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True


@contextmanager
def stopping() -> Iterator[Stop]:
    """While running task runs, Ctrl-C and SIGTERM ask to stop rather than break off what is in
    flight. Signals are the main thread's only, and one the caller ignores stays ignored."""
    stop = Stop()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    previous = {number: signal.getsignal(number) for number in STOP_SIGNALS}
    for number, handler in previous.items():
        if handler is not signal.SIG_IGN:
            signal.signal(number, stop.ask)
    try:
        yield stop
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)


def run_planned(
    benchmark: Benchmark, make_agent: AgentFactory, run: PlannedRun, agent: str
) -> TaskRunResult:
    """One planned task run, with a fresh agent from `make_agent`."""
    task = benchmark.tasks[run.task_id]
    return run_task(
        benchmark,
        task,
        make_agent(task, run.repeat),
        run_id=run.id,
        repeat=run.repeat,
        agent_name=agent,
    )


class SerialExecutor:
    """One task run after another, in this process (a Python class agent in one process of its
    own, kept for them all); `action_timeout_s` bounds each action of such an agent. With
    `concurrency` > 1, that many task runs are in flight at once, each in a thread."""

    def __init__(self, action_timeout_s: float = DEFAULT_ACTION_TIMEOUT_S, concurrency: int = 1):
        self.action_timeout_s = action_timeout_s
        self.concurrency = concurrency

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
            self.execute_made(benchmark, agent, make_agent, planned, on_result, on_start)
        finally:
            close_agents(make_agent)

    def execute_made(
        self,
        benchmark: Benchmark,
        agent: str,
        make_agent: AgentFactory,
        planned: Sequence[PlannedRun],
        on_result: OnResult,
        on_start: OnStart,
    ) -> None:
        """As `execute`, with agents from `make_agent` (in this process), recorded as `agent`."""
        with stopping() as stop:
            if self.concurrency > 1:
                from assay.runs.threads import run_concurrently

                def run_one(run: PlannedRun) -> TaskRunResult:
                    return run_planned(benchmark, make_agent, run, agent)

                run_concurrently(planned, run_one, self.concurrency, on_start, on_result, stop)
                return
            one_by_one(benchmark, agent, make_agent, planned, on_result, on_start, stop)


def one_by_one(
    benchmark: Benchmark,
    agent: str,
    make_agent: AgentFactory,
    planned: Sequence[PlannedRun],
    on_result: OnResult,
    on_start: OnStart,
    stop: Stop,
) -> None:
    """Each planned task run in turn, in this thread; KeyboardInterrupt before the next one once
    `stop` is asked for."""
    for run in planned:
        if stop.requested:
            raise KeyboardInterrupt
        on_start(run)
        on_result(run_planned(benchmark, make_agent, run, agent))


# A scripted agent's task run on a database world takes a millisecond or a few (0.8 ms on
# bench/versus.py's world, 2.2 ms on bench/retail.py's); starting a pool (new processes that
# import assay and load the world) about a second. A pool also adds work to every task run: the
# worker sends its result as JSON, and the main process reads it back, stores it and hands over the
# next run, one result at a time whatever the cores (bench/README.md, "What a pool adds").
POOL_START_S = 1.0
HANDOFF_S = 0.0009  # CPU a pool adds to each task run, the worker's and the main process's
PARENT_S = 0.00055  # of which the main process's, which no number of workers shares out
SAMPLE_RUNS = 20  # quick task runs timed in this process before a pool is chosen for the rest


def pool_is_faster(runs: int, run_s: float, cores: int) -> bool:
    """Whether `runs` task runs of `run_s` seconds each would finish sooner in a pool of one
    worker per core than one after another in this process."""
    if cores <= 1:
        return False
    pooled = POOL_START_S + runs * max((run_s + HANDOFF_S) / cores, PARENT_S)
    return pooled < runs * run_s


def executor_for(
    workers: int | None,
    runs: int,
    action_timeout_s: float = DEFAULT_ACTION_TIMEOUT_S,
    concurrency: int = 1,
    *,
    quick: bool = False,
) -> Executor:
    """One process for one worker (or one task run); a pool otherwise. None: one per core, unless
    task runs are to run concurrently in threads (then one process), or are `quick` (each takes
    milliseconds: see `quick_runs`): then the first ones run in this process, timed, and a pool
    takes the rest only if the timing says it would finish them sooner (`SampledExecutor`).
    `workers` always gets that many. `concurrency`: task runs in flight at once in each process."""
    cores = os.cpu_count() or 1
    if workers is None and quick and concurrency <= 1 and cores > 1 and runs > SAMPLE_RUNS:
        return SampledExecutor(cores, action_timeout_s)
    default = 1 if concurrency > 1 or quick else cores
    count = workers if workers is not None else default
    if count <= 1 or runs <= 1:
        return SerialExecutor(action_timeout_s, concurrency)
    from assay.runs.pool import ProcessExecutor  # multiprocessing only for a pool

    return ProcessExecutor(count, action_timeout_s, concurrency)


class SampledExecutor:
    """Quick task runs with no number of workers asked for: the first SAMPLE_RUNS in this process,
    timed, then the rest in a pool of one worker per core if `pool_is_faster` says a pool would
    finish them sooner at that pace, else here too. Results are the same either way."""

    def __init__(self, cores: int, action_timeout_s: float = DEFAULT_ACTION_TIMEOUT_S):
        self.cores = cores
        self.action_timeout_s = action_timeout_s
        self.pooled = False  # whether the rest went to a pool

    def execute(
        self,
        benchmark: Benchmark,
        agent: str,
        planned: Sequence[PlannedRun],
        on_result: OnResult,
        on_start: OnStart,
    ) -> None:
        first, rest = planned[:SAMPLE_RUNS], planned[SAMPLE_RUNS:]
        ended: list[float] = []

        def timed(result: TaskRunResult) -> None:
            on_result(result)
            ended.append(time.perf_counter())

        make_agent = agent_factory(agent, action_timeout_s=self.action_timeout_s)
        try:
            with stopping() as stop:  # one for both parts: a stop in the first holds the rest
                one_by_one(benchmark, agent, make_agent, first, timed, on_start, stop)
                if rest and stop.requested:
                    raise KeyboardInterrupt
                self.pooled = bool(rest) and pool_is_faster(len(rest), _pace(ended), self.cores)
                if not self.pooled:
                    one_by_one(benchmark, agent, make_agent, rest, on_result, on_start, stop)
        finally:
            close_agents(make_agent)
        if self.pooled:
            from assay.runs.pool import ProcessExecutor  # multiprocessing only for a pool

            pool = ProcessExecutor(self.cores, self.action_timeout_s)
            pool.execute(benchmark, agent, rest, on_result, on_start)


def _pace(ended: Sequence[float]) -> float:
    """Seconds per task run, storing included: the median time between results, the first
    (which prepared what later ones reuse) left out."""
    gaps = sorted(later - earlier for earlier, later in itertools.pairwise(ended))
    return gaps[len(gaps) // 2] if gaps else 0.0


class ExecutorMaker(Protocol):
    """Makes the executor of one kind for `runs` task runs (`address`: where a cluster is)."""

    def __call__(
        self,
        workers: int | None,
        runs: int,
        action_timeout_s: float,
        concurrency: int,
        *,
        quick: bool,
        address: str | None,
    ) -> Executor: ...


def pool_executor(
    workers: int | None,
    runs: int,
    action_timeout_s: float,
    concurrency: int,
    *,
    quick: bool,
    address: str | None,
) -> Executor:
    """`--executor pool`: worker processes on this machine (see `executor_for`)."""
    return executor_for(workers, runs, action_timeout_s, concurrency, quick=quick)


# `--executor` kind → its maker; Ray's is imported only for a run on Ray
EXECUTOR_KINDS: Registry[ExecutorMaker] = Registry("executor")
EXECUTOR_KINDS.declare("pool", pool_executor)
EXECUTOR_KINDS.declare("ray", "assay.runs.cluster:ray_executor")


def quick_runs(benchmark: Benchmark, agent: str) -> bool:
    """Whether each task run takes milliseconds: a scripted agent (no model, no process of its
    own) on a world whose tools run in this process (no container-format sandbox)."""
    return parse_agent(agent).scripted and not benchmark.world.kind.sandboxed
