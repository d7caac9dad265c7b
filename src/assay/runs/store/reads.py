"""Reading a run's task runs back from the records store: their states, aggregation rows and
full results (all at once, or a page at a time)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlalchemy import Engine, or_, select

from assay.runs.rows import TaskRow
from assay.runs.store.records import TaskRunState, check_json, result_of, task_row
from assay.runs.store.tables import check_runs, task_runs, trajectories
from assay.score.result import TaskRunResult


class TaskRunReads:
    engine: Engine

    def task_states(self, run_id: str) -> list[TaskRunState]:
        """Every task run of the run, finished or not, in planned order."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(
                    task_runs.c.id,
                    task_runs.c.task_id,
                    task_runs.c.repeat,
                    task_runs.c.split,
                    task_runs.c.phase,
                    task_runs.c.status,
                    task_runs.c.outcome,
                )
                .where(task_runs.c.benchmark_run_id == run_id)
                .order_by(task_runs.c.position)
            ).all()
        return [TaskRunState(**row._asdict()) for row in rows]

    def task_rows(self, run_id: str) -> list[TaskRow]:
        """The aggregation rows of the run's finished task runs; cancelled ones do not count."""
        columns = [task_runs.c[name] for name in TaskRow._fields]
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(*columns)
                .where(
                    task_runs.c.benchmark_run_id == run_id,
                    task_runs.c.phase == "completed",
                    task_runs.c.status != "cancelled",
                )
                .order_by(task_runs.c.position)
            ).all()
        return [task_row(row) for row in rows]

    def results(
        self, run_id: str, *, task: str | None = None, trajectories_too: bool = False
    ) -> list[TaskRunResult]:
        """The run's finished task runs in full; `task` picks one task's (or one task run's)."""
        where = _finished(run_id)
        if task is not None:
            where.append(or_(task_runs.c.task_id == task, task_runs.c.id == task))
        return self._results(where, trajectories_too)

    def each_result(
        self, run_id: str, *, trajectories_too: bool = False, page: int = 200
    ) -> Iterator[TaskRunResult]:
        """The run's finished task runs in full, in order, read `page` at a time so that a run of
        any size is never all in memory."""
        where = _finished(run_id)
        with self.engine.connect() as connection:
            ids = connection.execute(
                select(task_runs.c.id).where(*where).order_by(task_runs.c.position)
            ).scalars()
            ids = list(ids)
        for start in range(0, len(ids), page):
            chosen = [*where, task_runs.c.id.in_(ids[start : start + page])]
            yield from self._results(chosen, trajectories_too)

    def _results(self, where: list[Any], trajectories_too: bool) -> list[TaskRunResult]:
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


def _finished(run_id: str) -> list[Any]:
    return [
        task_runs.c.benchmark_run_id == run_id,
        task_runs.c.phase == "completed",
        task_runs.c.result.is_not(None),  # a task run cancelled before it started has none
    ]
