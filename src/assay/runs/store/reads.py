"""Reading a run's task runs back from the records store: their states, aggregation rows and
full results (all at once, or a page at a time)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from assay.runs.rows import TaskRow
from assay.runs.store.part import StorePart
from assay.runs.store.records import TaskRunState, check_json, result_of, task_row
from assay.score.result import TaskRunResult

if TYPE_CHECKING:
    from assay.runs.store.lite import Transaction


class TaskRunReads(StorePart):
    def task_states(self, run_id: str) -> list[TaskRunState]:
        """Every task run of the run, finished or not, in planned order."""
        rows = self.statements.read("TASK_STATES", {"b_run": run_id})
        return [TaskRunState(*row) for row in rows]

    def task_rows(self, run_id: str) -> list[TaskRow]:
        """The aggregation rows of the run's finished task runs; cancelled ones do not count."""
        rows = self.statements.read("TASK_ROWS", {"b_run": run_id})
        return [task_row(row) for row in rows]

    def results(
        self, run_id: str, *, task: str | None = None, trajectories_too: bool = False
    ) -> list[TaskRunResult]:
        """The run's finished task runs in full; `task` picks one task's (or one task run's)."""
        from sqlalchemy import or_

        from assay.runs.store.tables import task_runs

        where = _finished(run_id)
        if task is not None:
            where.append(or_(task_runs.c.task_id == task, task_runs.c.id == task))
        return self._results(where, trajectories_too)

    def each_result(
        self, run_id: str, *, trajectories_too: bool = False, page: int = 200
    ) -> Iterator[TaskRunResult]:
        """The run's finished task runs in full, in order, read `page` at a time so that a run of
        any size is never all in memory."""
        for row, checks, trajectory in self._each_stored(run_id, trajectories_too, page):
            yield result_of(row, [check_json(check) for check in checks], trajectory)

    def each_result_text(self, run_id: str, *, page: int = 200) -> Iterator[str]:
        """`each_result` with trajectories, each as the text `json.dumps(result.as_json())` gives,
        spliced from the stored JSON (`assay.runs.store.result_text`)."""
        from assay.runs.store.result_text import result_text

        for row, checks, trajectory in self._each_stored(run_id, True, page):
            yield result_text(row, checks, trajectory)

    def _each_stored(
        self, run_id: str, trajectories_too: bool, page: int
    ) -> Iterator[tuple[Any, list[Any], Any]]:
        found = self.statements.read("FINISHED_POSITIONS", {"b_run": run_id})
        # each position once: a page holds every task run at its positions, never one twice
        positions = list(dict.fromkeys(row.position for row in found))
        for start in range(0, len(positions), page):
            chosen = positions[start : start + page]
            bounds = {"b_run": run_id, "b_first": chosen[0], "b_last": chosen[-1]}
            with self.statements.transaction() as transaction:
                stored = _page(transaction, bounds, trajectories_too)
            yield from stored

    def _results(self, where: list[Any], trajectories_too: bool) -> list[TaskRunResult]:
        from sqlalchemy import select

        from assay.runs.store.tables import check_runs, task_runs, trajectories

        with self.engine.connect() as connection:
            rows = connection.execute(
                select(task_runs.c.id, task_runs.c.result, task_runs.c.axes, task_runs.c.summary)
                .where(*where)
                .order_by(task_runs.c.position)
            ).all()
            ids = [row.id for row in rows]
            checks: dict[str, list[dict[str, Any]]] = {task_run_id: [] for task_run_id in ids}
            for check in connection.execute(
                select(check_runs)
                .join(task_runs, task_runs.c.id == check_runs.c.task_run_id)
                .where(*where)
                .order_by(check_runs.c.task_run_id, check_runs.c.position)
            ):
                checks[check.task_run_id].append(check_json(check))
            saved: dict[str, Any] = {}
            if trajectories_too:
                saved = dict(
                    connection.execute(
                        select(trajectories.c.task_run_id, trajectories.c.trajectory)
                        .join(task_runs, task_runs.c.id == trajectories.c.task_run_id)
                        .where(*where)
                    ).all()
                )
        return [result_of(row, checks[row.id], saved.get(row.id)) for row in rows]


def _page(
    transaction: Transaction, bounds: dict[str, Any], trajectories_too: bool
) -> list[tuple[Any, list[Any], Any]]:
    """The finished task runs among positions `b_first`..`b_last` of run `b_run`: each one's row,
    check-run rows and trajectory (None without `trajectories_too`), JSON columns as text."""
    rows = transaction.rows("RESULT_PAGE", bounds)
    checks: dict[str, list[Any]] = {row.id: [] for row in rows}
    for check in transaction.rows("CHECK_PAGE", bounds):
        checks[check.task_run_id].append(check)
    saved = dict(transaction.rows("TRAJECTORY_PAGE", bounds)) if trajectories_too else {}
    return [(row, checks[row.id], saved.get(row.id)) for row in rows]


def _finished(run_id: str) -> list[Any]:
    from assay.runs.store.tables import task_runs

    return [
        task_runs.c.benchmark_run_id == run_id,
        task_runs.c.phase == "completed",
        task_runs.c.result.is_not(None),  # a task run cancelled before it started has none
    ]
