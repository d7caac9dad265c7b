"""What every endpoint shares: the served worlds, the store, who may see what, and the task runs in
flight in this process."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assay.runs.benchmark import Benchmark
from assay.runs.handle import TaskRunHandle
from assay.runs.store import RunRecord, Store, UnknownRun
from assay.runs.store.progress import Progress, TaskRunRef
from assay.served.auth import Auth, Caller
from assay.served.catalog import Catalog
from assay.served.errors import ApiError, not_found
from assay.taskrun.session import Session


@dataclass
class Flying:
    """A started task run held in memory: its handle, its benchmark run, and how many of its
    actions are stored."""

    handle: TaskRunHandle
    benchmark_run_id: str
    recorded: int = 0

    @property
    def session(self) -> Session:
        return self.handle.session


@dataclass(frozen=True)
class RunInfo:
    """What the flow needs to know of a benchmark run, read once."""

    id: str
    benchmark: Benchmark
    agent: str
    scored: bool
    key_id: str | None = None  # the API key that created the run


class Context:
    def __init__(self, catalog: Catalog, store: Store, auth: Auth):
        self.catalog = catalog
        self.store = store
        self.progress = auth.progress
        self.auth = auth
        self.flying: dict[str, Flying] = {}
        self._runs: dict[str, RunInfo] = {}
        self._owners: dict[str, str] = {}
        # Protocol listeners when served (`assay serve --mllp/--sftp-port`): the MLLP listeners
        # opened per run, and the SFTP server's URL.
        self.mllp: Any = None
        self.sftp: Any = None
        self.sftp_url: str | None = None

    @classmethod
    def open(cls, catalog: Catalog, store: Store, operator_key: str, token_ttl_s: float) -> Context:
        return cls(catalog, store, Auth(operator_key, Progress(store), token_ttl_s))

    async def start_listeners(self) -> None:
        if self.sftp is not None:
            self.sftp_url = await self.sftp.start()

    async def stop_listeners(self) -> None:
        for listener in (self.sftp, self.mllp):
            if listener is not None:
                await listener.close()

    def record(self, caller: Caller, run_id: str) -> RunRecord:
        """The benchmark run, if the caller may see it; 404 otherwise, whether or not it exists."""
        if not self.may_see(caller, run_id):
            raise not_found("benchmark run", run_id)
        try:
            record = self.store.benchmark_run(run_id)
        except UnknownRun:
            raise not_found("benchmark run", run_id) from None
        if record.id != run_id:  # the store finds runs by a prefix of their id too; not so here
            raise not_found("benchmark run", run_id)
        return record

    def may_see(self, caller: Caller, run_id: str) -> bool:
        """Admin sees every run; a run token its own run; another key the runs it created."""
        if caller.operator:
            return True
        if caller.run_id is not None or caller.key_id is None:
            return caller.run_id == run_id
        owner = self._owners.get(run_id)
        if owner is None:
            try:
                owner = self.store.benchmark_run(run_id).key_id or ""
            except UnknownRun:
                return False
            self._owners[run_id] = owner
        return owner == caller.key_id

    def hides(self, caller: Caller, run_id: str, task_id: str) -> bool:
        """Whether the caller sees a task run's result without details and evidence: a scored run
        for all but the admin, and a holdout task's for all but the admin, always."""
        if caller.operator:
            return False
        info = self.run_info(run_id)
        task = info.benchmark.tasks.get(task_id)
        return info.scored or task is None or task.split == "holdout"

    def run_info(self, run_id: str) -> RunInfo:
        info = self._runs.get(run_id)
        if info is None:
            record = self.store.benchmark_run(run_id)
            benchmark = self.catalog.of(record.world, record.world_version, record.verifier_mode)
            info = RunInfo(record.id, benchmark, record.agent, record.scored, record.key_id)
            self._runs[run_id] = info
        return info

    def task_run(self, caller: Caller, task_run_id: str) -> TaskRunRef:
        """The task run as the store has it now (another server may have moved it), if the caller
        may see it; 404 otherwise."""
        ref = self.progress.task_run(task_run_id)
        if ref is None or not self.may_see(caller, ref.benchmark_run_id):
            raise not_found("task run", task_run_id)
        if ref.phase == "completed":
            self.drop(ref.id)
        return ref

    def drop(self, task_run_id: str) -> None:
        """Forget a task run's session in this process (it finished, or it went stale)."""
        flying = self.flying.pop(task_run_id, None)
        if flying is not None:
            flying.handle.close()

    def in_flight(self, ref: TaskRunRef) -> Flying:
        """The started task run's session, rebuilt by replaying its recorded actions if this process
        has not seen it (after a restart, or when another server started it) or has fallen behind
        the store (another server acted on it since)."""
        if ref.phase == "created":
            raise ApiError(409, "not_started", f"task run {ref.id} has not been started")
        if ref.phase == "completed":
            raise ApiError(409, "completed", f"task run {ref.id} is already completed")
        flying = self.flying.get(ref.id)
        if flying is not None and ref.actions != flying.recorded:
            self.drop(ref.id)
            flying = None
        if flying is None:
            handle = self.open_task_run(ref, timed=False)  # its real start is not known here
            actions = self.progress.actions(ref.id)
            for action in actions:
                handle.act(action)
            flying = Flying(handle, ref.benchmark_run_id, recorded=len(actions))
            self.flying[ref.id] = flying
        return flying

    def open_task_run(self, ref: TaskRunRef, *, timed: bool = True) -> TaskRunHandle:
        """A fresh task run of the stored one, its world reset now, named by the run's agent."""
        info = self.run_info(ref.benchmark_run_id)
        task = info.benchmark.tasks[ref.task_id]
        return TaskRunHandle(
            info.benchmark, task, run_id=ref.id, repeat=ref.repeat, agent=info.agent, timed=timed
        )

    def all_finished(self, run_id: str) -> bool:
        """Whether every task run of the run has finished, counted in the store after this
        server's own write: of several servers, the last to finish one sees them all."""
        total, done = self.progress.count_finished(run_id)
        return done >= total
