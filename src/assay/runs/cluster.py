"""Task runs as Ray actors, on this machine or across a cluster's; each actor loads the world once.

The driver hands each actor one task run at a time (or up to `concurrency`, which it runs in
threads) and reports it started as it hands it over, so what was told started is always run and
reported, and a stop takes nothing back. Results come back as TaskRunResult JSON and are reported
as they arrive, in the calling thread. Ray is imported here only, and only when this runs.

With no address, a local Ray instance is started for the run (and ended after it) with Ctrl-C and
SIGTERM held back from its processes, which share the caller's process group: the driver decides.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
from collections import deque
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from assay.errors import UsageError, WorkerFailure
from assay.runs.execute import STOP_SIGNALS, OnResult, OnStart, Stop, run_planned, stopping
from assay.runs.plan import PlannedRun
from assay.runs.pool import QUIT_S, WorkerExecutor, WorkerSetup, portable
from assay.score.result import TaskRunResult
from assay.taskrun.agents.isolated import DEFAULT_ACTION_TIMEOUT_S
from assay.taskrun.agents.resolve import agent_factory, close_agents

# what the actors must see of the driver's environment: assay's documented variables (the world
# server, its home) and the model provider's; the run's settings travel in their WorkerSetup
FORWARDED_PREFIXES = ("ASSAY_", "OPENAI_")
WAIT_S = 0.5  # how long the driver waits for a result before it looks at a stop again
CONNECT_S = 5.0  # how long a cluster's address may take to answer


def forwarded_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables of `environ` (default: this process's) that the actors get."""
    environ = os.environ if environ is None else environ
    return {name: value for name, value in environ.items() if name.startswith(FORWARDED_PREFIXES)}


CONCURRENCY_REFUSED = (
    "--concurrency: with --executor ray each actor runs one task run at a time; "
    "--workers gives more actors"
)


class TaskRunActor:
    """One Ray actor: the world loaded once, then each task run it is handed. A failure to load
    is kept and raised by the first task run, so the driver gets the error itself."""

    def __init__(self, setup: WorkerSetup):
        self.setup = setup
        self.failure: Exception | None = None
        self.make_agent = None
        try:
            self.benchmark = setup.open()
            # a class agent's process is started here, once, and lives as long as the actor
            self.make_agent = agent_factory(setup.agent, action_timeout_s=setup.action_timeout_s)
        except Exception as error:
            self.failure = error

    def run(self, run: PlannedRun) -> str:
        if self.failure is not None:
            raise portable(self.failure)
        assert self.make_agent is not None
        try:
            result = run_planned(self.benchmark, self.make_agent, run, self.setup.agent)
        except Exception as error:
            raise portable(error) from None
        return result.model_dump_json()

    def close(self) -> None:
        if self.make_agent is not None:
            close_agents(self.make_agent)
        if self.failure is None:
            self.benchmark.close()


class RayExecutor(WorkerExecutor):
    """Task runs as Ray actors: `workers` of them (default: one per CPU of the cluster, or one
    when `concurrency` > 1), on the cluster at `address` (default: Ray already connected in this
    process, else a local instance started for the run)."""

    def __init__(
        self,
        workers: int | None = None,
        address: str | None = None,
        action_timeout_s: float = DEFAULT_ACTION_TIMEOUT_S,
        concurrency: int = 1,
    ):
        if concurrency > 1:
            # several task runs in threads of one actor hung in testing (each stuck in SQLite):
            # until that is understood, an actor takes one task run at a time
            raise UsageError(CONCURRENCY_REFUSED)
        self.workers = workers
        self.address = address
        self.action_timeout_s = action_timeout_s
        self.concurrency = concurrency

    def dispatch(
        self, setup: WorkerSetup, waiting: deque[PlannedRun], on_result: OnResult, on_start: OnStart
    ) -> None:
        with connected(self.address) as ray:
            cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
            default = 1 if self.concurrency > 1 else cpus
            count = min(self.workers or default, len(waiting))
            with stopping() as stop, _actors(ray, setup, count, cpus) as actors:
                _Dispatch(ray, actors, waiting, stop, on_start, on_result, self.concurrency).run()


@contextmanager
def connected(address: str | None) -> Iterator[Any]:
    """The `ray` module, connected: as it already is in this process, to `address`, or to a local
    instance started now with Ctrl-C and SIGTERM held back from its processes (ended after)."""
    import ray

    if ray.is_initialized():
        yield ray
        return
    if address is not None and (problem := _unreachable(address)):
        raise UsageError(f"--ray-address: cannot connect to Ray at {address}: {problem}")
    main = threading.current_thread() is threading.main_thread()
    terminate = signal.getsignal(signal.SIGTERM)  # ray.init puts in a handler of its own there
    # processes started here inherit the mask; connecting to a cluster stays interruptible
    held = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS if address is None else ())
    try:
        ray.init(
            address=address or "local",  # never $RAY_ADDRESS or a `ray start` found here
            include_dashboard=False,
            log_to_driver=False,  # a worker's prints would land in `--json` output
            logging_level=logging.ERROR,
        )
    except (ConnectionError, ValueError) as error:  # no cluster there, or no address at all
        if address is None:
            raise
        raise UsageError(f"--ray-address: cannot connect to Ray at {address}: {error}") from None
    finally:
        if main:
            signal.signal(signal.SIGTERM, terminate)
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    try:
        yield ray
    finally:
        ray.shutdown()


def _unreachable(address: str) -> str | None:
    """Why a host:port address takes no connection now (ray.init would wait on it for minutes);
    None if it does, or if it is another form (ray://…, auto)."""
    host, colon, port = address.rpartition(":")
    if not colon or not port.isdigit() or "://" in address:
        return None
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_S).close()
    except OSError as error:
        return str(error) or type(error).__name__
    return None


@contextmanager
def _actors(ray: Any, setup: WorkerSetup, count: int, cpus: int) -> Iterator[list[Any]]:
    """`count` actors, each asking one CPU (a share, when more are asked for than the cluster
    has); all are killed at the end, after closing their agents if nothing broke off."""
    options = {
        "num_cpus": min(1.0, cpus / count),
        "max_concurrency": max(1, setup.concurrency),
        "runtime_env": {"env_vars": forwarded_env()},
    }
    remote = ray.remote(TaskRunActor).options(**options)
    actors = [remote.remote(setup) for _ in range(count)]
    try:
        yield actors
        with suppress(Exception):  # all idle: they close their agents (killed below regardless)
            ray.wait([a.close.remote() for a in actors], num_returns=count, timeout=QUIT_S)
    finally:
        for actor in actors:  # busy ones too (stopped at once): their agents end with them
            ray.kill(actor)


@dataclass
class _Dispatch:
    """Hands out task runs to actors with a free slot until none is left or a stop is asked for,
    and reports each result as it arrives."""

    ray: Any
    actors: list[Any]
    waiting: deque[PlannedRun]
    stop: Stop
    on_start: OnStart
    on_result: OnResult
    per_actor: int = 1
    in_flight: dict[Any, tuple[int, PlannedRun]] = field(default_factory=dict)  # ref → whose

    def run(self) -> None:
        for index in range(len(self.actors)):
            self._hand_out(index)
        while self.in_flight:
            try:
                ready, _ = self.ray.wait(list(self.in_flight), num_returns=1, timeout=WAIT_S)
                for ref in ready:
                    self._receive(ref)
            except KeyboardInterrupt:
                if self.stop.requested:
                    raise  # the second one: stop at once
                self.stop.requested = True  # raised by a caller's callback: stop as asked

    def _hand_out(self, index: int) -> None:
        def load() -> int:
            return sum(1 for whose, _ in self.in_flight.values() if whose == index)

        while self.waiting and not self.stop.requested and load() < self.per_actor:
            run = self.waiting.popleft()
            self.on_start(run)
            self.in_flight[self.actors[index].run.remote(run)] = (index, run)

    def _receive(self, ref: Any) -> None:
        index, run = self.in_flight.pop(ref)
        result = TaskRunResult.model_validate_json(self._get(ref, run))
        self.on_result(result)
        self._hand_out(index)  # after the result is kept: begun and not kept stay ≤ slots

    def _get(self, ref: Any, run: PlannedRun) -> str:
        """The result's JSON; the actor's own error if it raised one (its traceback a note)."""
        from ray.exceptions import RayActorError, RayTaskError

        try:
            result: str = self.ray.get(ref)  # the actor answers a result's JSON
            return result
        except RayTaskError as error:
            if isinstance(error.cause, Exception):
                raise error.cause from None
            raise WorkerFailure(str(error)) from None
        except RayActorError as error:
            raise WorkerFailure(f"a Ray actor ended in task run {run.id}: {error}") from None


def ray_executor(
    workers: int | None,
    runs: int,
    action_timeout_s: float,
    concurrency: int,
    *,
    quick: bool,
    address: str | None,
) -> RayExecutor:
    """`--executor ray`: Ray actors, on the cluster at `address` or a local one."""
    return RayExecutor(workers, address, action_timeout_s, concurrency)
