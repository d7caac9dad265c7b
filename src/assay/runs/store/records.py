"""What the store hands back, and how a result is split into rows and put together again."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from assay.runs.plan import new_id
from assay.runs.rows import TaskRow, axis_row
from assay.score.result import TaskRunResult
from assay.verify.check_run import CheckRun

if TYPE_CHECKING:  # rows of SQLAlchemy's, or of `assay.runs.store.lite` (named tuples)
    from typing import TypeAlias

    from sqlalchemy import Row

    from assay.formats.verifier_choice import VerifierChoice

    StoredRow: TypeAlias = Row[*tuple[Any, ...]]  # a row of any columns

# Parts of a result kept in their own columns or tables rather than in `task_runs.result`.
APART = ("checks", "trajectory", "axes", "summary")
CHECK_FIELDS = ("name", "type", "weight", "axis", "passed", "score", "details", "evidence")
CHECK_COLUMNS = (*CHECK_FIELDS, "judged")
# a check run's JSON keys in the order the model dumps them, each with its column
# (`judged` only when true, as the model dumps it)
CHECK_JSON = {
    field.alias or name: name for name, field in CheckRun.model_fields.items() if name != "judged"
}


@dataclass(frozen=True)
class RunRecord:
    """A benchmark run's row, with how many of its task runs have finished."""

    id: str
    world: str
    world_version: str
    world_path: str
    agent: str
    repeats: int
    tasks: int
    task_runs: int
    finished: int
    scored: bool
    phase: str
    status: str
    score: float | None
    verdict: str | None
    figures: dict[str, Any] | None
    created_at: str
    started_at: str | None
    finished_at: str | None
    key_id: str | None = None  # the API key that created the run, if one did
    verifier_mode: VerifierChoice = "task"  # `task`, each task's own, or `separate` for all
    config: dict[str, Any] | None = None  # a `runs.config.StoredConfig`; None: made without one


@dataclass(frozen=True)
class TaskRunState:
    """Where one planned task run stands: `phase` completed means its result is stored."""

    id: str
    task_id: str
    repeat: int
    split: str
    phase: str
    status: str
    outcome: str | None


RUN_FIELDS = [field.name for field in fields(RunRecord) if field.name != "finished"]


def run_record(row: StoredRow, finished: int) -> RunRecord:
    values = row._asdict()
    return RunRecord(**{name: values[name] for name in RUN_FIELDS}, finished=finished)


def task_row(row: StoredRow) -> TaskRow:
    """The aggregation row of a stored task run."""
    axes = row.axes or {}
    return TaskRow(
        task_id=row.task_id,
        repeat=row.repeat,
        split=row.split,
        outcome=row.outcome,
        reward=row.reward,
        score=row.score,
        axes={name: axis_row(axis) for name, axis in axes.items()},
        summary=row.summary,
        status=row.status,
    )


def split_result(result: TaskRunResult) -> dict[str, Any]:
    """The result serialised once, its parts that live apart taken out of `result`."""
    data = result.as_json(trajectory=True)
    parts = {name: data.pop(name) for name in APART}
    return {**parts, "result": data}


def result_values(result: TaskRunResult, parts: dict[str, Any]) -> dict[str, Any]:
    """A finished task run's own columns, from the result and its parts (`split_result`)."""
    return {
        "phase": "completed",
        "status": result.status,
        "outcome": result.outcome,
        "reward": result.reward,
        "score": result.score,
        "verdict": result.verdict,
        "axes": parts["axes"],
        "summary": parts["summary"],
        "result": parts["result"],
    }


def check_values(task_run_id: str, checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The check runs' rows, each with a new id, in order."""
    return [
        {
            "id": new_id("cr"),
            "task_run_id": task_run_id,
            "position": position,
            "kind": check["assert"],
            **{name: check[name] for name in CHECK_FIELDS},
            "judged": check.get("judged", False),  # in the JSON only when true
        }
        for position, check in enumerate(checks)
    ]


def stored_result_row(
    run_id: str, result: TaskRunResult, parts: dict[str, Any], finished_at: str
) -> dict[str, Any]:
    """The parameters of STORE_RESULT (and the claims built on it) for one finished task run."""
    return {
        "b_id": result.id,
        "b_run": run_id,
        "b_started": result.started_at,
        **result_values(result, parts),
        "finished_at": finished_at,
    }


def json_value(stored: Any) -> Any:
    """A JSON column as read: text where it was read as text (the pages of `assay run`'s path),
    already decoded otherwise. Every such column holds an object or null, never a bare string."""
    return json.loads(stored) if isinstance(stored, str) else stored


def check_json(row: StoredRow) -> dict[str, Any]:
    """A stored check run in its JSON form, keys in the order the model dumps them."""
    data = {key: getattr(row, column) for key, column in CHECK_JSON.items()}
    data["evidence"] = json_value(data["evidence"])
    if row.judged:
        data["judged"] = True
    return data


def result_of(row: StoredRow, checks: list[dict[str, Any]], trajectory: Any) -> TaskRunResult:
    """A stored task run as the one result model."""
    data = dict(json_value(row.result))
    data.update(
        axes=json_value(row.axes),
        summary=json_value(row.summary),
        checks=checks,
        trajectory=json_value(trajectory),
    )
    return TaskRunResult.model_validate(data)
