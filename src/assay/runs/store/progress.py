"""Task runs in progress over HTTP: the run's bearer token, each task run's phase and its actions,
kept in the store so that a restarted server can carry on where it stopped."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, case, exists, func, insert, select, update

from assay.runs.stamps import now
from assay.runs.store.completed import CompletedWriter
from assay.runs.store.driver import Driver
from assay.runs.store.repository import Store
from assay.runs.store.tables import benchmark_runs, check_runs, task_run_actions, task_runs
from assay.score.result import TaskRunResult

# Built once: these run for every action of a served task run.
RECORD_ACTION = insert(task_run_actions)
RECORD_IF_STARTED = insert(task_run_actions).from_select(
    ["task_run_id", "seq", "action"],
    select(
        bindparam("task_run_id", type_=task_run_actions.c.task_run_id.type),
        bindparam("seq", type_=task_run_actions.c.seq.type),
        bindparam("action", type_=task_run_actions.c.action.type),
    ).where(
        exists().where(task_runs.c.id == bindparam("task_run_id"), task_runs.c.phase == "started")
    ),
)
START_TASK_RUN = (
    update(task_runs)
    .where(task_runs.c.id == bindparam("row_id"), task_runs.c.phase == "created")
    .values(phase="started", status="active", started_at=bindparam("stamp"))
)
START_RUN = (
    update(benchmark_runs)
    .where(benchmark_runs.c.id == bindparam("row_id"), benchmark_runs.c.phase == "created")
    .values(phase="started", started_at=bindparam("stamp"))
)
STORED_ACTIONS = (
    select(func.count())
    .select_from(task_run_actions)
    .where(task_run_actions.c.task_run_id == task_runs.c.id)
    .scalar_subquery()
)
TASK_RUN = select(
    *(task_runs.c[name] for name in ("id", "benchmark_run_id", "task_id", "repeat", "position")),
    task_runs.c.phase,
    task_runs.c.status,
    STORED_ACTIONS.label("actions"),
).where(task_runs.c.id == bindparam("row_id"))
COUNT_FINISHED = select(
    func.count(), func.count(case((task_runs.c.phase == "completed", 1)))
).where(task_runs.c.benchmark_run_id == bindparam("row_id"))


@dataclass(frozen=True)
class TaskRunRef:
    """Where one task run stands, and the run it belongs to."""

    id: str
    benchmark_run_id: str
    task_id: str
    repeat: int
    position: int
    phase: str
    status: str
    actions: int = 0  # how many of its actions are stored


@dataclass(frozen=True)
class CheckRunRef:
    id: str
    task_run_id: str
    benchmark_run_id: str
    position: int
    data: dict[str, Any]


class Progress:
    """The store's methods for driven task runs; every write is one transaction."""

    def __init__(self, store: Store):
        self.store = store
        self.engine = store.engine
        self._started_runs: set[str] = set()
        # One driver connection kept open for the reads and writes every action makes (the API
        # serves one request at a time), its statements compiled once.
        self.driver = Driver(self.engine)
        self._task_run = self.driver.prepare(TASK_RUN)
        self._start_task_run = self.driver.prepare(START_TASK_RUN)
        self._start_run = self.driver.prepare(START_RUN)
        self._record_action = self.driver.prepare(RECORD_ACTION, ["task_run_id", "seq", "action"])
        self._record_if_started = self.driver.prepare(RECORD_IF_STARTED)
        self._count_finished = self.driver.prepare(COUNT_FINISHED)
        self._completed = CompletedWriter(self.driver)

    def set_token(self, run_id: str, token_hash: str, expires_at: str) -> None:
        with self.engine.begin() as connection:
            connection.execute(
                update(benchmark_runs)
                .where(benchmark_runs.c.id == run_id)
                .values(token_hash=token_hash, token_expires_at=expires_at)
            )

    def run_of_token(self, token_hash: str) -> tuple[str, str, str | None] | None:
        """The run id, expiry and creating key's id (None: the operator's) of a token, by its hash."""
        with self.engine.connect() as connection:
            row = connection.execute(
                select(
                    benchmark_runs.c.id, benchmark_runs.c.token_expires_at, benchmark_runs.c.key_id
                ).where(benchmark_runs.c.token_hash == token_hash)
            ).first()
        return None if row is None else (row.id, row.token_expires_at, row.key_id)

    def task_run(self, task_run_id: str) -> TaskRunRef | None:
        """Where the task run stands now, with how many actions it has stored, in one read on the
        connection that writes them."""
        row = self.driver.one(self._task_run, {"row_id": task_run_id})
        return None if row is None else TaskRunRef(*row)

    def start(self, ref: TaskRunRef) -> bool:
        """Phase `started`, and the run's too; False if the task run had already left `created`."""
        stamp = now()
        with self.driver.transaction() as execute:
            moved = execute(self._start_task_run, {"row_id": ref.id, "stamp": stamp}).rowcount
            if ref.benchmark_run_id not in self._started_runs:
                execute(self._start_run, {"row_id": ref.benchmark_run_id, "stamp": stamp})
                self._started_runs.add(ref.benchmark_run_id)
        return bool(moved)

    def record_action(self, task_run_id: str, seq: int, action: dict[str, Any]) -> bool:
        """Keep one action; it is on disk before the agent sees what it did. False when the task
        run already holds an action at `seq` (another server acted first)."""
        values = {"task_run_id": task_run_id, "seq": seq, "action": action}
        try:
            self.driver.one(self._record_action, values)
        except self.driver.integrity_error:
            return False
        return True

    def record_if_started(self, task_run_id: str, seq: int, action: dict[str, Any]) -> bool:
        """Keep one action if the task run is in phase `started` and holds none at `seq` yet, in one
        statement; False, and nothing kept, otherwise."""
        values = {"task_run_id": task_run_id, "seq": seq, "action": action}
        try:
            return self.driver.write(self._record_if_started, values) == 1
        except self.driver.integrity_error:
            return False

    def save_completed(
        self, run_id: str, result: TaskRunResult, actions: int | None = None
    ) -> list[str] | None:
        """Store a completed task run whole (`CompletedWriter.save`); None if another finished it,
        or, given `actions`, if it does not hold exactly that many stored actions."""
        return self._completed.save(run_id, result, actions)

    def actions(self, task_run_id: str) -> list[dict[str, Any]]:
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(task_run_actions.c.action)
                .where(task_run_actions.c.task_run_id == task_run_id)
                .order_by(task_run_actions.c.seq)
            ).all()
        return [row.action for row in rows]

    def cancel_unstarted(self, task_run_id: str) -> None:
        """A task run cancelled before it started: finished, with nothing to grade."""
        with self.engine.begin() as connection:
            connection.execute(
                update(task_runs)
                .where(task_runs.c.id == task_run_id)
                .values(phase="completed", status="cancelled", finished_at=now())
            )

    def started(self, run_id: str) -> list[str]:
        """The run's task runs in phase `started`, in plan order."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(task_runs.c.id)
                .where(task_runs.c.benchmark_run_id == run_id, task_runs.c.phase == "started")
                .order_by(task_runs.c.position)
            ).all()
        return [row.id for row in rows]

    def unfinished(self, run_id: str) -> list[str]:
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(task_runs.c.id)
                .where(task_runs.c.benchmark_run_id == run_id, task_runs.c.phase != "completed")
                .order_by(task_runs.c.position)
            ).all()
        return [row.id for row in rows]

    def check_run(self, check_id: str) -> CheckRunRef | None:
        found = self._check_runs(check_runs.c.id == check_id, limit=1)
        return found[0] if found else None

    def check_runs(self, task_run_id: str, after: int, limit: int) -> list[CheckRunRef]:
        """A page of a task run's check runs, after the position `after`."""
        return self._check_runs(
            check_runs.c.task_run_id == task_run_id, check_runs.c.position > after, limit=limit
        )

    def _check_runs(self, *where: Any, limit: int) -> list[CheckRunRef]:
        from assay.runs.store.records import check_json

        with self.engine.connect() as connection:
            rows = connection.execute(
                select(check_runs, task_runs.c.benchmark_run_id)
                .join(task_runs, task_runs.c.id == check_runs.c.task_run_id)
                .where(*where)
                .order_by(check_runs.c.position)
                .limit(limit)
            ).all()
        return [
            CheckRunRef(
                row.id, row.task_run_id, row.benchmark_run_id, row.position, check_json(row)
            )
            for row in rows
        ]

    def count_finished(self, run_id: str) -> tuple[int, int]:
        """How many task runs the run has, and how many have finished."""
        row = self.driver.one(self._count_finished, {"row_id": run_id})
        assert row is not None  # an aggregate always has its row
        return row[0], row[1]
