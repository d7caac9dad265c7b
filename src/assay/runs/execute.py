"""Executors run planned task runs; the loop does not care whether they run here or elsewhere.

A stop (the first Ctrl-C or SIGTERM) starts nothing new: the task runs in flight finish and are
reported, then the executor raises KeyboardInterrupt. A second one raises it at once.
"""

from __future__ import annotations

import os
import signal
import threading
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
            for run in planned:
                if stop.requested:
                    raise KeyboardInterrupt
                on_start(run)
                on_result(run_planned(benchmark, make_agent, run, agent))


# A scripted agent's task run on a database world takes milliseconds (2.2 ms each in one process
# on bench/retail.py's world); starting a pool (new processes that import assay and load the
# world) about a second. Below the plan size where a pool's share of the work saves that second,
# one process finishes first (bench/retail.py's `crossover`: on 2 cores 1,030 such task runs
# took 3.3 s in one process and 4.9 s in a pool of two).
QUICK_RUN_S = 0.0025
POOL_START_S = 1.0


def serial_is_faster(runs: int, cores: int) -> bool:
    """Whether `runs` quick task runs finish sooner in one process than in a pool over `cores`."""
    return runs * QUICK_RUN_S * (1 - 1 / max(cores, 1)) < POOL_START_S


def executor_for(
    workers: int | None,
    runs: int,
    action_timeout_s: float = DEFAULT_ACTION_TIMEOUT_S,
    concurrency: int = 1,
    *,
    quick: bool = False,
) -> Executor:
    """One process for one worker (or one task run); a pool otherwise. None: one per core, unless
    task runs are to run concurrently in threads, or are `quick` (each takes milliseconds: see
    `quick_runs`) and so few that a pool could not make up for its start (`serial_is_faster`):
    then one process, unless `workers` says more. `concurrency`: task runs in flight at once in
    each process."""
    cores = os.cpu_count() or 1
    small = quick and serial_is_faster(runs, cores)
    default = 1 if concurrency > 1 or small else cores
    count = workers if workers is not None else default
    if count <= 1 or runs <= 1:
        return SerialExecutor(action_timeout_s, concurrency)
    from assay.runs.pool import ProcessExecutor  # multiprocessing only for a pool

    return ProcessExecutor(count, action_timeout_s, concurrency)


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
