"""A served task run's result stored as it completes: one transaction on the driver's connection,
its statements compiled once, claiming the task run so that of two servers completing it only one
stores it."""

from __future__ import annotations

from sqlalchemy import bindparam, func, insert, select

from assay.runs.stamps import now
from assay.runs.store.driver import Driver
from assay.runs.store.records import check_values, split_result, stored_result_row
from assay.runs.store.statements import CHECK_KEYS, CLAIM_KEYS, STORE_RESULT
from assay.runs.store.tables import check_runs, task_run_actions, task_runs, trajectories
from assay.score.result import TaskRunResult

CLAIM = STORE_RESULT.where(task_runs.c.phase != "completed")
# a task run graded on the copy this process held, with no read before: claimed only while it is
# started and holds exactly the actions the copy took (no other server acted on or finished it)
CLAIM_HELD = CLAIM.where(
    task_runs.c.phase == "started",
    select(func.count())
    .select_from(task_run_actions)
    .where(task_run_actions.c.task_run_id == task_runs.c.id)
    .scalar_subquery()
    == bindparam("b_actions"),
)


class CompletedWriter:
    """Stores completed task runs whole: the task run's row, its check runs, its trajectory."""

    def __init__(self, driver: Driver):
        self.driver = driver
        self._claim = driver.prepare(CLAIM, CLAIM_KEYS)
        self._claim_held = driver.prepare(CLAIM_HELD, CLAIM_KEYS)
        self._add_checks = driver.prepare(insert(check_runs), CHECK_KEYS)
        self._add_trajectory = driver.prepare(insert(trajectories), ["task_run_id", "trajectory"])

    def save(
        self, run_id: str, result: TaskRunResult, actions: int | None = None
    ) -> list[str] | None:
        """The ids the check runs got, in order; None if the task run had already finished (or is
        not one of the run's), or, given `actions`, unless it is started and holds that many."""
        parts = split_result(result)
        row = stored_result_row(run_id, result, parts, now())
        if actions is not None:
            row["b_actions"] = actions
        checks = check_values(result.id, parts["checks"])
        with self.driver.transaction() as execute:
            claim = self._claim if actions is None else self._claim_held
            if not execute(claim, row).rowcount:
                return None
            if checks:
                execute(self._add_checks, checks)
            if parts["trajectory"] is not None:
                trajectory = {"task_run_id": result.id, "trajectory": parts["trajectory"]}
                execute(self._add_trajectory, trajectory)
        return [check["id"] for check in checks]
