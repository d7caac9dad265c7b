"""Task runs in worker processes (spawn); each worker loads the world once.

The parent hands each worker one PlannedRun at a time (or up to `concurrency`, which the worker
runs in threads), so no more than `workers × concurrency` are ever in flight and nothing is queued
that a stop would have to take back. A worker says when it begins a
task run and sends back the TaskRunResult as JSON, on its own pipe, so the start always comes
first and results are the same whatever the number of workers. Workers ignore Ctrl-C and SIGTERM,
which reach the whole process group from a terminal, `timeout` or CI: the parent decides.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import threading
import traceback
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Any

from assay.errors import WorkerFailure
from assay.runs.benchmark import Benchmark, open_benchmark
from assay.runs.execute import (
    STOP_SIGNALS,
    OnResult,
    OnStart,
    Stop,
    run_planned,
    stopping,
)
from assay.runs.kept import kept_folder
from assay.runs.plan import PlannedRun
from assay.score.result import TaskRunResult
from assay.settings import RunSettings, in_force, install
from assay.taskrun.agents.isolated import DEFAULT_ACTION_TIMEOUT_S
from assay.taskrun.agents.resolve import agent_factory, close_agents

if TYPE_CHECKING:
    from assay.formats.verifier_choice import VerifierChoice

QUIT_S = 5.0  # how long an idle worker may take to end once told to


@dataclass(frozen=True)
class WorkerSetup:
    world: str
    world_db: str | None
    agent: str
    action_timeout_s: float = DEFAULT_ACTION_TIMEOUT_S
    concurrency: int = 1
    verifier_mode: VerifierChoice = "task"  # the run's choice, the world loaded again with it
    keep_artifacts: str | None = None  # where its task runs keep their trial folders
    left_out: tuple[str, ...] = ()  # the tasks the run did not load (withdrawn)
    settings: RunSettings = field(default_factory=RunSettings)  # the run's, in force in the worker

    @classmethod
    def of(cls, world: Any, agent: str, action_timeout_s: float, concurrency: int) -> WorkerSetup:
        """How a worker loads `world` (a live World) again to run `agent`'s task runs, with the
        run settings in force here."""
        kept = kept_folder(world)
        return cls(
            str(world.root),
            world.world_db,
            agent,
            action_timeout_s,
            concurrency,
            world.verifier_mode,
            None if kept is None else str(kept),
            tuple(sorted(world.left_out)),
            in_force(),
        )

    def open(self) -> Benchmark:
        """The run's settings in force in this worker, then the world loaded again in it, as the
        run loaded it."""
        install(self.settings)
        return open_benchmark(
            self.world,
            world_db=self.world_db,
            verifier_mode=self.verifier_mode,
            keep_artifacts=self.keep_artifacts,
            left_out=self.left_out,
        )


def _serve(setup: WorkerSetup, channel: Connection) -> None:
    """A worker: load the world once, then run each task run it is handed until told to end."""
    for number in STOP_SIGNALS:  # the parent decides; it started this process with them blocked
        signal.signal(number, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent.sentinel,), daemon=True).start()
    try:
        benchmark = setup.open()
        # a class agent's process is started here, once, and lives as long as the worker
        make_agent = agent_factory(setup.agent, action_timeout_s=setup.action_timeout_s)
    except Exception as error:
        channel.send(("failed", portable(error)))
        return
    lock = threading.Lock()

    def work(run: PlannedRun) -> None:
        with lock:
            channel.send(("started", run.id))
        message: tuple[str, str | Exception]
        try:
            message = (
                "result",
                run_planned(benchmark, make_agent, run, setup.agent).model_dump_json(),
            )
        except Exception as error:
            message = ("failed", portable(error))
        with lock:
            channel.send(message)

    try:
        if setup.concurrency <= 1:
            while (run := _next(channel)) is not None:
                work(run)
        else:
            with ThreadPoolExecutor(setup.concurrency, thread_name_prefix="assay-task-run") as pool:
                while (run := _next(channel)) is not None:
                    pool.submit(work, run)
    finally:
        close_agents(make_agent)


def _next(channel: Connection) -> PlannedRun | None:
    """The next task run to run; None when told to end, or when the parent has gone."""
    try:
        run: PlannedRun | None = channel.recv()  # the parent sends only these
        return run
    except EOFError:
        return None


def _end_with(parent_sentinel: int) -> None:
    """A worker whose parent is gone (killed outright) has nobody to report to: it ends too."""
    multiprocessing.connection.wait([parent_sentinel])
    os._exit(1)


def portable(error: Exception) -> Exception:
    """The error itself if it can cross to the parent, else its text; the traceback as a note."""
    text = "".join(traceback.format_exception(error))
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        error = WorkerFailure(text)
    error.add_note(f"in the worker process:\n{text}")
    return error


@dataclass
class _Worker:
    process: BaseProcess
    channel: Connection
    runs: dict[str, PlannedRun] = field(default_factory=dict)  # handed to it, results not back


class WorkerExecutor:
    """Task runs in workers that load the world again from one WorkerSetup (processes of their
    own, Ray actors); a subclass says how the planned runs are handed out to them."""

    action_timeout_s: float
    concurrency: int

    def execute(
        self,
        benchmark: Benchmark,
        agent: str,
        planned: Sequence[PlannedRun],
        on_result: OnResult,
        on_start: OnStart,
    ) -> None:
        if not planned:
            return
        setup = WorkerSetup.of(benchmark.world, agent, self.action_timeout_s, self.concurrency)
        waiting = deque(planned)
        self.dispatch(setup, waiting, on_result, on_start)
        if waiting:
            raise KeyboardInterrupt  # stopped before these began

    def dispatch(
        self, setup: WorkerSetup, waiting: deque[PlannedRun], on_result: OnResult, on_start: OnStart
    ) -> None:
        """Run what `waiting` holds in workers, taking each run out as it is handed to one; what a
        stop leaves in it never began."""
        raise NotImplementedError


class ProcessExecutor(WorkerExecutor):
    """Up to `workers` task runs at once, each in a process of its own."""

    def __init__(
        self, workers: int, action_timeout_s: float = DEFAULT_ACTION_TIMEOUT_S, concurrency: int = 1
    ):
        self.workers = workers
        self.action_timeout_s = action_timeout_s
        self.concurrency = concurrency

    def dispatch(
        self, setup: WorkerSetup, waiting: deque[PlannedRun], on_result: OnResult, on_start: OnStart
    ) -> None:
        count = min(self.workers, len(waiting))
        with stopping() as stop, _workers(setup, count) as workers:
            _Dispatch(workers, waiting, stop, on_start, on_result, self.concurrency).run()


@dataclass
class _Dispatch:
    """Hands out task runs to idle workers until none is left or a stop is asked for, and
    reports each start and result as its worker sends it."""

    workers: list[_Worker]
    waiting: deque[PlannedRun]
    stop: Stop
    on_start: OnStart
    on_result: OnResult
    per_worker: int = 1

    def run(self) -> None:
        for worker in self.workers:
            self._hand_out(worker)
        while busy := [worker for worker in self.workers if worker.runs]:
            try:
                self._receive(busy)
            except KeyboardInterrupt:
                if self.stop.requested:
                    raise  # the second one: stop at once
                self.stop.requested = True  # raised by a caller's callback: stop as asked

    def _hand_out(self, worker: _Worker) -> None:
        while self.waiting and not self.stop.requested and len(worker.runs) < self.per_worker:
            run = self.waiting.popleft()
            worker.runs[run.id] = run
            try:
                worker.channel.send(run)
            except OSError:  # it died before reading (killed as it started)
                raise _ended(worker) from None

    def _receive(self, busy: list[_Worker]) -> None:
        # keyed by the pipes and process sentinels, as `wait` hands them back
        by_handle: dict[Any, _Worker] = {w.channel: w for w in busy}
        by_handle |= {w.process.sentinel: w for w in busy}
        for handle in multiprocessing.connection.wait(list(by_handle)):
            worker = by_handle[handle]
            if not worker.runs:
                continue  # its result came in on the other handle in this same round
            # a worker that has ended reads as the end of its pipe, after what it sent; one that
            # died with a task run unread in its pipe reads as a reset connection
            try:
                kind, body = worker.channel.recv()
            except (EOFError, ConnectionResetError):
                raise _ended(worker) from None
            self._message(worker, kind, body)

    def _message(self, worker: _Worker, kind: str, body: object) -> None:
        if kind == "started":
            self.on_start(worker.runs[body])  # type: ignore[index]
            return
        if kind == "failed":
            raise body  # type: ignore[misc]
        result = TaskRunResult.model_validate_json(body)  # type: ignore[arg-type]
        worker.runs.pop(result.id, None)
        self.on_result(result)
        self._hand_out(worker)  # after the result is kept: begun and not kept stay ≤ slots


def _ended(worker: _Worker) -> WorkerFailure:
    """The failure of a worker that is gone, with its exit code and the task run it held."""
    worker.process.join()
    code = worker.process.exitcode
    return WorkerFailure(f"a worker ended (exit code {code}) in task run {next(iter(worker.runs))}")


@contextmanager
def _workers(setup: WorkerSetup, count: int) -> Iterator[list[_Worker]]:
    """`count` worker processes, started with Ctrl-C and SIGTERM held back so that one sent to
    the group while they start cannot end them; idle ones are told to end, busy ones killed."""
    context = multiprocessing.get_context("spawn")
    workers: list[_Worker] = []
    held = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        for _ in range(count):
            channel, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(setup, theirs))
            process.start()
            theirs.close()
            workers.append(_Worker(process, channel))
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    try:
        yield workers
    finally:
        _end(workers)


def _end(workers: list[_Worker]) -> None:
    """Idle workers are told to end; busy ones (stopped at once) are killed, as SIGTERM is
    ignored; none is left behind, whatever interrupts this."""
    try:
        for worker in workers:
            if not worker.runs:
                with suppress(OSError):  # it may have ended already
                    worker.channel.send(None)
        for worker in workers:
            if not worker.runs:
                worker.process.join(QUIT_S)
    finally:
        for worker in workers:
            if worker.process.is_alive():
                worker.process.kill()
            worker.process.join()
            worker.channel.close()
