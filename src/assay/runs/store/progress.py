"""Task runs in progress over HTTP: the run's bearer token, each task run's phase and its actions,
kept in the store so that a restarted server can carry on where it stopped. Every statement is
one of the store's named statements (`assay.runs.store.statements`): on an SQLite file, serving
task runs needs no SQLAlchemy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assay.runs.stamps import now
from assay.runs.store.completed import CompletedWriter
from assay.runs.store.lite import integrity_error
from assay.runs.store.repository import Store
from assay.score.result import TaskRunResult


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
        self.statements = store.statements
        self._started_runs: set[str] = set()
        self._completed = CompletedWriter(self.statements)

    def set_token(self, run_id: str, token_hash: str, expires_at: str) -> None:
        self.statements.write(
            "SET_TOKEN", {"b_id": run_id, "token_hash": token_hash, "token_expires_at": expires_at}
        )

    def run_of_token(self, token_hash: str) -> tuple[str, str, str | None] | None:
        """The run id, expiry and creating key's id (None: the operator's) of a token, by its hash."""
        found = self.statements.read("RUN_OF_TOKEN", {"b_hash": token_hash})
        return (found[0].id, found[0].token_expires_at, found[0].key_id) if found else None

    def task_run(self, task_run_id: str) -> TaskRunRef | None:
        """Where the task run stands now, with how many actions it has stored, in one read."""
        found = self.statements.read("TASK_RUN", {"row_id": task_run_id})
        return TaskRunRef(*found[0]) if found else None

    def start(self, ref: TaskRunRef) -> bool:
        """Phase `started`, and the run's too; False if the task run had already left `created`."""
        values = {"row_id": ref.id, "stamp": now()}
        with self.statements.transaction() as transaction:
            moved = transaction.write("START_TASK_RUN", values)
            if ref.benchmark_run_id not in self._started_runs:
                transaction.write("START_SERVED_RUN", {**values, "row_id": ref.benchmark_run_id})
                self._started_runs.add(ref.benchmark_run_id)
        return bool(moved)

    def record_action(self, task_run_id: str, seq: int, action: dict[str, Any]) -> bool:
        """Keep one action; it is on disk before the agent sees what it did. False when the task
        run already holds an action at `seq` (another server acted first)."""
        return self._write_unless_taken("RECORD_ACTION", task_run_id, seq, action) == 1

    def record_if_started(self, task_run_id: str, seq: int, action: dict[str, Any]) -> bool:
        """Keep one action if the task run is in phase `started` and holds none at `seq` yet, in one
        statement; False, and nothing kept, otherwise."""
        return self._write_unless_taken("RECORD_IF_STARTED", task_run_id, seq, action) == 1

    def _write_unless_taken(self, name: str, task_run_id: str, seq: int, action: Any) -> int:
        """How many actions the statement kept: none when the task run holds one at `seq`."""
        values = {"task_run_id": task_run_id, "seq": seq, "action": action}
        try:
            return self.statements.write(name, values)
        except Exception as error:
            if integrity_error(error):
                return 0
            raise

    def save_completed(
        self, run_id: str, result: TaskRunResult, actions: int | None = None
    ) -> list[str] | None:
        """Store a completed task run whole (`CompletedWriter.save`); None if another finished it,
        or, given `actions`, if it does not hold exactly that many stored actions."""
        return self._completed.save(run_id, result, actions)

    def actions(self, task_run_id: str) -> list[dict[str, Any]]:
        return [row.action for row in self.statements.read("ACTIONS", {"b_id": task_run_id})]

    def cancel_unstarted(self, task_run_id: str) -> None:
        """A task run cancelled before it started: finished, with nothing to grade."""
        self.statements.write("CANCEL_UNSTARTED", {"b_id": task_run_id, "finished_at": now()})

    def started(self, run_id: str) -> list[str]:
        """The run's task runs in phase `started`, in plan order."""
        return [row.id for row in self.statements.read("STARTED_IDS", {"b_run": run_id})]

    def unfinished(self, run_id: str) -> list[str]:
        return [row.id for row in self.statements.read("UNFINISHED_IDS", {"b_run": run_id})]

    def check_run(self, check_id: str) -> CheckRunRef | None:
        found = self._check_runs("CHECK_RUN", {"b_id": check_id})
        return found[0] if found else None

    def check_runs(self, task_run_id: str, after: int, limit: int) -> list[CheckRunRef]:
        """A page of a task run's check runs, after the position `after`."""
        values = {"b_id": task_run_id, "b_after": after, "b_limit": limit}
        return self._check_runs("CHECK_RUNS_AFTER", values)

    def _check_runs(self, name: str, values: dict[str, Any]) -> list[CheckRunRef]:
        from assay.runs.store.records import check_json

        return [
            CheckRunRef(
                row.id, row.task_run_id, row.benchmark_run_id, row.position, check_json(row)
            )
            for row in self.statements.read(name, values)
        ]

    def count_finished(self, run_id: str) -> tuple[int, int]:
        """How many task runs the run has, and how many have finished."""
        [(planned, finished)] = self.statements.read("COUNT_FINISHED", {"b_run": run_id})
        return planned, finished
