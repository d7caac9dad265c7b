"""Task runs of a stored run written in batches, several to a transaction.

The crash boundary: a batch is committed when it holds `size` finished task runs (by the thread
that finished the last of them) or `wait_s` after the first thing in it arrived (by a clock thread
of its own), whichever comes first, and when the writer closes. A process killed outright loses at
most the task runs that finished since the last commit: never more than `size` (nothing is handed
over while a batch is being committed), and none that finished much more than `wait_s` before it
died (a commit takes its own time too). They are still unfinished in the store, which is what
`assay run --resume` runs again. Each task run is stored whole or not at all.

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
    docstring). Tell it from any thread; `close` commits what is left and raises what went wrong."""

    def __init__(
        self,
        store: Store,
        run_id: str,
        size: int = BATCH_SIZE,
        wait_s: float = BATCH_WAIT_S,
        *,
        replacing: bool = True,
    ):
        """`replacing`: a task run may have a result stored already (a resumed run's not-scored
        ones), whose check runs and trajectory go; a fresh run's task runs have none."""
        self.store = store
        self.run_id = run_id
        self.replacing = replacing
        self.size = size
        self.wait_s = wait_s
        self._starts: dict[str, str] = {}
        self._results: list[tuple[TaskRunResult, str]] = []  # with when each one ended
        self._first_at: float | None = None
        self._closing = False
        self._failure: BaseException | None = None
        # held through every commit: nothing is handed over while a batch is being written
        self._batch = threading.Condition()
        self._clock = threading.Thread(target=self._on_time, name="assay-store-clock", daemon=True)
        self._clock.start()

    def started(self, task_run_id: str) -> None:
        """A task run has begun."""
        with self._batch:
            self._raise_failure()
            self._starts[task_run_id] = now()
            self._arrived()

    def finished(self, result: TaskRunResult) -> None:
        """A task run has ended; it is stored whole with its batch. The one that fills the batch
        commits it, in this thread: handing a batch to another thread cost more than writing it
        (the two take turns at the interpreter), and no more than `size` ever wait uncommitted."""
        with self._batch:
            self._raise_failure()
            self._starts.pop(result.id, None)
            self._results.append((result, now()))
            self._arrived()
            if len(self._results) >= self.size:
                self._commit()

    def close(self) -> None:
        """Commit what is left and stop the clock; raises the error a commit met, if one did."""
        with self._batch:
            self._closing = True
            self._batch.notify_all()
        self._clock.join()
        with self._batch:
            self._raise_failure()
            self._commit()

    def _arrived(self) -> None:
        if self._first_at is None:
            self._first_at = time.monotonic()
            self._batch.notify_all()  # starts the clock

    def _raise_failure(self) -> None:
        # It stays raised: a batch that failed is not stored, nor would anything told afterwards be.
        if self._failure is not None:
            raise self._failure

    def _commit(self) -> None:
        """The batch, written in one transaction; called holding the batch."""
        starts, results = self._starts, self._results
        self._starts, self._results, self._first_at = {}, [], None
        if starts or results:
            try:
                commit(self.store, self.run_id, starts, results, replacing=self.replacing)
            except BaseException as error:
                self._failure = error
                raise

    def _on_time(self) -> None:
        """Commits a batch whose first arrival has waited `wait_s`, whatever the task runs do."""
        with self._batch:
            while not self._closing and self._failure is None:
                if self._first_at is None:
                    self._batch.wait()
                    continue
                left = self._first_at + self.wait_s - time.monotonic()
                if left > 0:
                    self._batch.wait(left)
                    continue
                try:
                    self._commit()
                except BaseException:  # kept in _failure: raised to the next caller
                    return


def commit(
    store: Store,
    run_id: str,
    starts: dict[str, str],
    results: list[tuple[TaskRunResult, str]],
    *,
    replacing: bool = True,
) -> None:
    """One transaction: the marks of task runs that have begun and the results of those that have
    ended (with when they ended), replacing any earlier result (a not-scored one run again)
    unless told there is none."""
    rows, checks, saved = [], [], []
    for result, finished in results:
        parts = split_result(result)
        rows.append(stored_result_row(run_id, result, parts, finished))
        checks += check_values(result.id, parts["checks"])
        if parts["trajectory"] is not None:
            saved.append({"task_run_id": result.id, "trajectory": parts["trajectory"]})
    marks = [{"b_id": key, "b_run": run_id, "started_at": at} for key, at in starts.items()]
    with store.statements.transaction() as transaction:  # an empty list writes nothing
        transaction.write("MARK_STARTED", marks)
        transaction.write("STORE_RESULT", rows)
        if replacing:
            ids = [{"b_id": row["b_id"]} for row in rows]
            transaction.write("DROP_CHECKS", ids)
            transaction.write("DROP_TRAJECTORY", ids)
        transaction.write("ADD_CHECKS", checks)
        transaction.write("ADD_TRAJECTORY", saved)
