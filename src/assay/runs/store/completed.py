"""A served task run's result stored as it completes: one transaction of the store's named
statements, claiming the task run so that of two servers completing it only one stores it."""

from __future__ import annotations

from assay.runs.stamps import now
from assay.runs.store.lite import Statements
from assay.runs.store.records import check_values, split_result, stored_result_row
from assay.score.result import TaskRunResult


class CompletedWriter:
    """Stores completed task runs whole: the task run's row, its check runs, its trajectory."""

    def __init__(self, statements: Statements):
        self.statements = statements

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
        with self.statements.transaction() as transaction:
            if not transaction.write("CLAIM" if actions is None else "CLAIM_HELD", row):
                return None
            if checks:
                transaction.write("ADD_CHECKS", checks)
            if parts["trajectory"] is not None:
                trajectory = {"task_run_id": result.id, "trajectory": parts["trajectory"]}
                transaction.write("ADD_TRAJECTORY", trajectory)
        return [check["id"] for check in checks]
