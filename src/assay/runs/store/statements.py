"""The statements of `assay run`'s path through the store and of task runs served over HTTP
(`assay.runs.store.progress`), by name, written once as SQLAlchemy constructs: compiled for SQLite
ahead of time into `sqlite_statements` (`python -m assay.runs.store.generate`), so that neither
`assay run` nor `assay serve` on an SQLite file imports SQLAlchemy, and for another database when
its store opens (`assay.runs.store.lite`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    Text,
    and_,
    bindparam,
    case,
    delete,
    exists,
    func,
    insert,
    select,
    type_coerce,
    update,
)
from sqlalchemy.sql import ClauseElement

from assay.runs.rows import TaskRow
from assay.runs.store.migrate import ALEMBIC_VERSION
from assay.runs.store.records import CHECK_COLUMNS
from assay.runs.store.tables import (
    HEAD,
    benchmark_runs,
    check_runs,
    task_run_actions,
    task_runs,
    trajectories,
    validations,
)

# a finished task run's row, whatever it held before (`stored_result_row` gives its parameters)
STORE_RESULT = (
    update(task_runs)
    .where(task_runs.c.id == bindparam("b_id"), task_runs.c.benchmark_run_id == bindparam("b_run"))
    # the mark made as it began stands (a served task run graded after a restart has no other)
    .values(started_at=func.coalesce(task_runs.c.started_at, bindparam("b_started")))
)
# the columns `result_values` gives, and when it finished
CLAIM_KEYS = [
    *("phase", "status", "outcome", "reward", "score", "verdict", "axes", "summary", "result"),
    "finished_at",
]
CHECK_KEYS = ["id", "task_run_id", "position", "kind", *CHECK_COLUMNS]
RUN_KEYS = [
    *("id", "world", "world_version", "world_path", "agent", "repeats", "tasks", "task_runs"),
    *("scored", "phase", "status", "created_at", "key_id", "verifier_mode", "config"),
]
PLANNED_KEYS = [
    *("id", "benchmark_run_id", "position", "task_id", "repeat", "split", "phase", "status"),
    "created_at",
]
STATE_COLUMNS = ("id", "task_id", "repeat", "split", "phase", "status", "outcome")

_OF_RUN = task_runs.c.benchmark_run_id == bindparam("b_run")
_UNFINISHED = task_runs.c.phase != "completed"
# a finished task run with a result (one cancelled before it started has none), among the
# positions `b_first`..`b_last`: each page `each_result` reads
_FINISHED = (_OF_RUN, task_runs.c.phase == "completed", task_runs.c.result.is_not(None))
_PAGE = (*_FINISHED, task_runs.c.position.between(bindparam("b_first"), bindparam("b_last")))
_THIS_RUN = (task_runs.c.id == bindparam("b_id"), _OF_RUN, _UNFINISHED)


def _as_text(*columns: Any) -> list[Any]:
    """The columns, a JSON one read as the text it is stored as (the same SQL, no decoding)."""
    return [
        type_coerce(column, Text).label(column.name) if isinstance(column.type, JSON) else column
        for column in columns
    ]


# name: (statement, the columns an INSERT or UPDATE is given)
PATH: dict[str, tuple[ClauseElement, list[str] | None]] = {
    "STAMP_HEAD": (insert(ALEMBIC_VERSION).values(version_num=HEAD), None),
    "REVISIONS": (select(ALEMBIC_VERSION.c.version_num), None),
    "VALIDATIONS": (
        select(validations)
        .where(
            validations.c.world == bindparam("b_world"),
            validations.c.version == bindparam("b_version"),
        )
        .order_by(validations.c.id),
        None,
    ),
    "ADD_RUN": (insert(benchmark_runs), RUN_KEYS),
    "ADD_PLANNED": (insert(task_runs), PLANNED_KEYS),
    "START_RUN": (
        update(benchmark_runs)
        .where(benchmark_runs.c.id == bindparam("b_id"))
        .values(
            phase="started",
            status="active",
            finished_at=None,
            started_at=func.coalesce(benchmark_runs.c.started_at, bindparam("b_now")),
        ),
        None,
    ),
    "REACTIVATE": (update(task_runs).where(_OF_RUN, _UNFINISHED).values(status="active"), None),
    "FINISH_RUN": (
        update(benchmark_runs).where(
            benchmark_runs.c.id == bindparam("b_id"),
            # not NOT IN: an expanding list has no fixed text to compile ahead of time
            and_(benchmark_runs.c.phase != "completed", benchmark_runs.c.phase != "cancelled"),
        ),
        ["phase", "status", "finished_at", "figures", "score", "verdict"],
    ),
    "CANCEL_UNFINISHED": (
        update(task_runs).where(_OF_RUN, _UNFINISHED).values(status="cancelled"),
        None,
    ),
    "RUN": (select(benchmark_runs).where(benchmark_runs.c.id == bindparam("b_id")), None),
    # `startswith(autoescape=True)` with the escaping done on the given text (`Store.benchmark_run`)
    "RUN_BY_PREFIX": (
        select(benchmark_runs)
        .where(benchmark_runs.c.id.like(bindparam("b_like"), escape="/"))
        .limit(2),
        None,
    ),
    "FINISHED_COUNT": (select(func.count()).where(_OF_RUN, task_runs.c.phase == "completed"), None),
    "TASK_ROWS": (
        select(*(task_runs.c[name] for name in TaskRow._fields))
        .where(_OF_RUN, task_runs.c.phase == "completed", task_runs.c.status != "cancelled")
        .order_by(task_runs.c.position),
        None,
    ),
    "TASK_STATES": (
        select(*(task_runs.c[name] for name in STATE_COLUMNS))
        .where(_OF_RUN)
        .order_by(task_runs.c.position),
        None,
    ),
    "FINISHED_POSITIONS": (
        select(task_runs.c.position).where(*_FINISHED).order_by(task_runs.c.position),
        None,
    ),
    # JSON columns as their stored text: `assay run --json` splices it (`result_text`)
    "RESULT_PAGE": (
        select(task_runs.c.id, *_as_text(task_runs.c.result, task_runs.c.axes, task_runs.c.summary))
        .where(*_PAGE)
        .order_by(task_runs.c.position),
        None,
    ),
    "CHECK_PAGE": (
        select(*_as_text(*check_runs.c))
        .join(task_runs, task_runs.c.id == check_runs.c.task_run_id)
        .where(*_PAGE)
        .order_by(check_runs.c.task_run_id, check_runs.c.position),
        None,
    ),
    "TRAJECTORY_PAGE": (
        select(trajectories.c.task_run_id, *_as_text(trajectories.c.trajectory))
        .join(task_runs, task_runs.c.id == trajectories.c.task_run_id)
        .where(*_PAGE),
        None,
    ),
    # the batch writer's (`assay.runs.store.batch`)
    "MARK_STARTED": (
        update(task_runs).where(*_THIS_RUN).values(phase="started", status="active"),
        ["started_at"],
    ),
    "STORE_RESULT": (STORE_RESULT, CLAIM_KEYS),
    "DROP_CHECKS": (delete(check_runs).where(check_runs.c.task_run_id == bindparam("b_id")), None),
    "DROP_TRAJECTORY": (
        delete(trajectories).where(trajectories.c.task_run_id == bindparam("b_id")),
        None,
    ),
    "ADD_CHECKS": (insert(check_runs), CHECK_KEYS),
    "ADD_TRAJECTORY": (insert(trajectories), ["task_run_id", "trajectory"]),
}

_ROW = task_runs.c.id == bindparam("row_id")
_ACTION_KEYS = ["task_run_id", "seq", "action"]
_STORED_ACTIONS = (
    select(func.count())
    .select_from(task_run_actions)
    .where(task_run_actions.c.task_run_id == task_runs.c.id)
    .scalar_subquery()
)
_CLAIM = STORE_RESULT.where(task_runs.c.phase != "completed")
_SERVED_CHECKS = select(check_runs, task_runs.c.benchmark_run_id).join(
    task_runs, task_runs.c.id == check_runs.c.task_run_id
)
_RUN_IDS = select(task_runs.c.id).where(_OF_RUN).order_by(task_runs.c.position)

# task runs served over HTTP (`assay.runs.store.progress`, `assay.runs.store.completed`)
PATH |= {
    "TASK_RUN": (
        select(
            *(task_runs.c[name] for name in ("id", "benchmark_run_id", "task_id", "repeat")),
            *(task_runs.c[name] for name in ("position", "phase", "status")),
            _STORED_ACTIONS.label("actions"),
        ).where(_ROW),
        None,
    ),
    "START_TASK_RUN": (
        update(task_runs)
        .where(_ROW, task_runs.c.phase == "created")
        .values(phase="started", status="active", started_at=bindparam("stamp")),
        None,
    ),
    "START_SERVED_RUN": (
        update(benchmark_runs)
        .where(benchmark_runs.c.id == bindparam("row_id"), benchmark_runs.c.phase == "created")
        .values(phase="started", started_at=bindparam("stamp")),
        None,
    ),
    "RECORD_ACTION": (insert(task_run_actions), _ACTION_KEYS),
    # one action kept only while its task run is started (and holds none at its place yet)
    "RECORD_IF_STARTED": (
        insert(task_run_actions).from_select(
            _ACTION_KEYS,
            select(
                bindparam("task_run_id", type_=task_run_actions.c.task_run_id.type),
                bindparam("seq", type_=task_run_actions.c.seq.type),
                bindparam("action", type_=task_run_actions.c.action.type),
            ).where(
                exists().where(
                    task_runs.c.id == bindparam("task_run_id"), task_runs.c.phase == "started"
                )
            ),
        ),
        None,
    ),
    "COUNT_FINISHED": (
        select(func.count(), func.count(case((task_runs.c.phase == "completed", 1)))).where(
            _OF_RUN
        ),
        None,
    ),
    "SET_TOKEN": (
        update(benchmark_runs).where(benchmark_runs.c.id == bindparam("b_id")),
        ["token_hash", "token_expires_at"],
    ),
    "RUN_OF_TOKEN": (
        select(
            benchmark_runs.c.id, benchmark_runs.c.token_expires_at, benchmark_runs.c.key_id
        ).where(benchmark_runs.c.token_hash == bindparam("b_hash")),
        None,
    ),
    "ACTIONS": (
        select(task_run_actions.c.action)
        .where(task_run_actions.c.task_run_id == bindparam("b_id"))
        .order_by(task_run_actions.c.seq),
        None,
    ),
    "CANCEL_UNSTARTED": (
        update(task_runs)
        .where(task_runs.c.id == bindparam("b_id"))
        .values(phase="completed", status="cancelled"),
        ["finished_at"],
    ),
    "STARTED_IDS": (_RUN_IDS.where(task_runs.c.phase == "started"), None),
    "UNFINISHED_IDS": (_RUN_IDS.where(_UNFINISHED), None),
    "CHECK_RUN": (_SERVED_CHECKS.where(check_runs.c.id == bindparam("b_id")), None),
    "CHECK_RUNS_AFTER": (
        _SERVED_CHECKS.where(
            check_runs.c.task_run_id == bindparam("b_id"),
            check_runs.c.position > bindparam("b_after"),
        )
        .order_by(check_runs.c.position)
        .limit(bindparam("b_limit")),
        None,
    ),
    "CLAIM": (_CLAIM, CLAIM_KEYS),
    # a task run graded on the copy this process held, with no read before: claimed only while it
    # is started and holds exactly the actions the copy took (no other server acted on or finished
    # it)
    "CLAIM_HELD": (
        _CLAIM.where(task_runs.c.phase == "started", bindparam("b_actions") == _STORED_ACTIONS),
        CLAIM_KEYS,
    ),
}
