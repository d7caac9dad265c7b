"""Task runs of a stored run written in batches, several to a transaction, by a thread of their own.

The crash boundary: a batch is committed when it holds `size` finished task runs or `wait_s` after
the first thing in it arrived, whichever comes first, and when the writer closes. A process killed
outright loses at most the task runs that finished since the last commit: never more than `size`
(a finished task run waits to be handed over while `size` are not committed yet), and none that
finished much more than `wait_s` before it died (a commit takes its own time too). They are still
unfinished in the store, which is what `assay run --resume` runs again. Each task run is stored
whole or not at all.

A task run's `started` mark travels in the same batches; one that finishes before its batch is
committed needs none (its result carries when it began), so a fast run writes no marks at all.
"""

from __future__ import annotations

import threading
import time

from assay.runs.stamps import now
from assay.runs.store.records import check_values, split_result, stored_result_row
from assay.runs.store.repository import Store
from assay.score.result import TaskRunResult

BATCH_SIZE = 100
BATCH_WAIT_S = 1.0


class BatchWriter:
    """Marks and results of one stored run's task runs, committed in batches (see the module's
    docstring). Tell it from one thread; `close` commits what is left and raises what went wrong."""

    def __init__(
        self, store: Store, run_id: str, size: int = BATCH_SIZE, wait_s: float = BATCH_WAIT_S
    ):
        self.store = store
        self.run_id = run_id
        self.size = size
        self.wait_s = wait_s
        self._starts: dict[str, str] = {}
        self._results: list[tuple[TaskRunResult, str]] = []  # with when each one ended
        self._first_at: float | None = None
        self._committing = 0  # task runs taken by the writer, not committed yet
        self._closing = False
        self._failure: BaseException | None = None
        self._ready = threading.Condition()
        self._thread = threading.Thread(target=self._write, name="assay-store-writer", daemon=True)
        self._thread.start()

    def started(self, task_run_id: str) -> None:
        """A task run has begun."""
        with self._ready:
            self._raise_failure()
            self._starts[task_run_id] = now()
            self._arrived()

    def finished(self, result: TaskRunResult) -> None:
        """A task run has ended; it is stored whole with the next batch. Waits while `size` task
        runs are not committed yet, so that a crash never loses more."""
        with self._ready:
            while len(self._results) + self._committing >= self.size:
                self._raise_failure()
                self._ready.wait()
            self._raise_failure()
            self._starts.pop(result.id, None)
            self._results.append((result, now()))
            self._arrived()
            if len(self._results) >= self.size:
                self._ready.notify_all()

    def close(self) -> None:
        """Commit what is left and stop the thread; raises the error a commit met, if one did."""
        with self._ready:
            self._closing = True
            self._ready.notify_all()
        self._thread.join()
        self._raise_failure()

    def _arrived(self) -> None:
        if self._first_at is None:
            self._first_at = time.monotonic()
            self._ready.notify_all()  # starts the writer's clock

    def _raise_failure(self) -> None:
        # It stays raised: with the writer stopped, nothing told to it afterwards would be stored.
        if self._failure is not None:
            raise self._failure

    def _write(self) -> None:
        while True:
            with self._ready:
                while not self._due():
                    self._ready.wait(self._left())
                starts, self._starts = self._starts, {}
                results, self._results = self._results, []
                self._first_at = None
                self._committing = len(results)
                closing = self._closing
            failure = None
            if starts or results:
                try:
                    commit(self.store, self.run_id, starts, results)
                except BaseException as error:  # told to the thread that feeds the writer
                    failure = error
            with self._ready:
                self._committing = 0
                self._failure = failure
                self._ready.notify_all()
            if closing or failure is not None:
                return

    def _due(self) -> bool:
        if self._closing or len(self._results) >= self.size:
            return True
        return self._first_at is not None and time.monotonic() - self._first_at >= self.wait_s

    def _left(self) -> float | None:
        if self._first_at is None:
            return None
        return max(0.0, self._first_at + self.wait_s - time.monotonic())


def commit(
    store: Store, run_id: str, starts: dict[str, str], results: list[tuple[TaskRunResult, str]]
) -> None:
    """One transaction: the marks of task runs that have begun and the results of those that have
    ended (with when they ended), replacing any earlier result (a not-scored one run again)."""
    rows, checks, saved = [], [], []
    for result, finished in results:
        parts = split_result(result)
        rows.append(stored_result_row(run_id, result, parts, finished))
        checks += check_values(result.id, parts["checks"])
        if parts["trajectory"] is not None:
            saved.append({"task_run_id": result.id, "trajectory": parts["trajectory"]})
    marks = [{"b_id": key, "b_run": run_id, "started_at": at} for key, at in starts.items()]
    with store.statements.transaction() as transaction:
        if marks:
            transaction.write("MARK_STARTED", marks)
        if rows:
            ids = [{"b_id": row["b_id"]} for row in rows]
            transaction.write("STORE_RESULT", rows)
            transaction.write("DROP_CHECKS", ids)
            transaction.write("DROP_TRAJECTORY", ids)
        if checks:
            transaction.write("ADD_CHECKS", checks)
        if saved:
            transaction.write("ADD_TRAJECTORY", saved)
