"""The records store: benchmark runs and task runs written; reading them back is `reads`, and
validations, builds and keys have modules of their own."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from assay.errors import UsageError
from assay.runs.plan import PlannedRun
from assay.runs.stamps import now
from assay.runs.store.builds import BuildRecords
from assay.runs.store.keys import KeyRecords
from assay.runs.store.lite import EngineStatements, SqliteFile, Statements
from assay.runs.store.location import Location, connect, locate
from assay.runs.store.reads import TaskRunReads
from assay.runs.store.records import (
    RunRecord,
    check_values,
    result_values,
    run_record,
    split_result,
)
from assay.runs.store.validations import ValidationRecords
from assay.score.result import TaskRunResult

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from assay.formats.verifier_choice import VerifierChoice

# Every module of the store imports SQLAlchemy in the methods that use it, not at the top: the
# methods on `assay run`'s path run named statements (`assay.runs.store.lite`), so a run on an
# SQLite file never imports it.


class UnknownRun(UsageError):
    """No benchmark run has that id (or unique prefix of one)."""


def open_store(option: str | None = None) -> Store:
    """The store named by `--store`, `ASSAY_STORE` or the default file, migrated to the newest schema."""
    location = locate(option)
    if location.file is None:
        return _open_engine(location)
    statements = SqliteFile(location.file)
    try:
        if statements.at_head():
            return Store(location, statements)
    except Exception as error:  # a DBAPIError, its driver's error within
        statements.close()
        cause = getattr(error, "orig", None)
        if not isinstance(cause, sqlite3.Error):
            raise
        raise location.refuse(f"cannot open {location.shown}: {_reason(cause)}") from None
    statements.close()  # an older store: the migrations run through SQLAlchemy
    return _open_engine(location)


def _open_engine(location: Location) -> Store:
    from sqlalchemy.exc import DBAPIError

    from assay.runs.store.migrate import upgrade

    engine = connect(location)
    try:
        upgrade(engine, location)
    except DBAPIError as error:
        engine.dispose()
        reason = _reason(error.orig) if error.orig else str(error)
        raise location.refuse(f"cannot open {location.shown}: {reason}") from None
    statements = SqliteFile(location.file) if location.file else EngineStatements(engine)
    return Store(location, statements, engine)


def _reason(error: BaseException) -> str:
    return str(error).strip().splitlines()[0]


class Store(TaskRunReads, ValidationRecords, BuildRecords, KeyRecords):
    """Every write is one transaction: a task run is stored whole or not at all. The methods on
    `assay run`'s path run named `statements`; the others use the SQLAlchemy `engine`, made the
    first time one needs it."""

    def __init__(self, location: Location, statements: Statements, engine: Engine | None = None):
        self.location = location
        self.statements = statements
        self._engine = engine
        self._making = threading.Lock()  # the API's threads may all want it first at once

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            with self._making:
                if self._engine is None:
                    self._engine = connect(self.location)
        return self._engine

    def close(self) -> None:
        self.statements.close()
        if self._engine is not None:
            self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # Benchmark runs

    def create_benchmark_run(
        self,
        run_id: str,
        *,
        world: str,
        world_version: str,
        world_path: str,
        agent: str,
        repeats: int,
        planned: Sequence[PlannedRun],
        splits: Mapping[str, str],
        scored: bool = False,
        key_id: str | None = None,
        verifier_mode: VerifierChoice = "task",
        config: Mapping[str, Any] | None = None,
    ) -> None:
        """A benchmark run in phase `created`, with a `created` row for each planned task run;
        `key_id`: the API key that created it (None: the operator key or the command line);
        `verifier_mode`: how its container-format tasks are verified (`task` or `separate`);
        `config`: how it was made (a `runs.config.StoredConfig` as JSON)."""
        created = now()
        with self.statements.transaction() as transaction:
            transaction.write(
                "ADD_RUN",
                {
                    "id": run_id,
                    "world": world,
                    "world_version": world_version,
                    "world_path": world_path,
                    "agent": agent,
                    "repeats": repeats,
                    "tasks": len({run.task_id for run in planned}),
                    "task_runs": len(planned),
                    "scored": scored,
                    "phase": "created",
                    "status": "active",
                    "created_at": created,
                    "key_id": key_id,
                    "verifier_mode": verifier_mode,
                    "config": None if config is None else dict(config),
                },
            )
            transaction.write(
                "ADD_PLANNED",
                [
                    {
                        "id": run.id,
                        "benchmark_run_id": run_id,
                        "position": position,
                        "task_id": run.task_id,
                        "repeat": run.repeat,
                        "split": splits[run.task_id],
                        "phase": "created",
                        "status": "active",
                        "created_at": created,
                    }
                    for position, run in enumerate(planned)
                ],
            )

    def start_benchmark_run(self, run_id: str, at: str | None = None) -> None:
        """Phase `started` (again, when resumed); unfinished task runs are active once more.
        `at`: when it started, if not now (a run imported from a bundle)."""
        with self.statements.transaction() as transaction:
            transaction.write("START_RUN", {"b_id": run_id, "b_now": at or now()})
            transaction.write("REACTIVATE", {"b_run": run_id})

    def finish_benchmark_run(
        self,
        run_id: str,
        *,
        phase: str,
        status: str,
        figures: dict[str, Any] | None,
        at: str | None = None,
    ) -> bool:
        """Phase `completed` or `cancelled` with the run's figures; unfinished task runs are
        cancelled. Only once: False when the run had already finished (another server did it)."""
        with self.statements.transaction() as transaction:
            moved = transaction.write(
                "FINISH_RUN",
                {
                    "b_id": run_id,
                    "phase": phase,
                    "status": status,
                    "finished_at": at or now(),
                    "figures": figures,
                    "score": None if figures is None else figures["score"],
                    "verdict": None if figures is None else figures["verdict"],
                },
            )
            if not moved:
                return False
            transaction.write("CANCEL_UNFINISHED", {"b_run": run_id})
        return True

    def count_task_runs(self, run_id: str) -> None:
        """Set a run's task and task-run counts from the task runs it holds: an open-ended run
        (an RL environment's, which draws its tasks as it goes) plans none in advance."""
        from sqlalchemy import func, select, update

        from assay.runs.store.tables import benchmark_runs, task_runs

        held = task_runs.c.benchmark_run_id == run_id
        with self.engine.begin() as connection:
            tasks, runs = connection.execute(
                select(func.count(func.distinct(task_runs.c.task_id)), func.count()).where(held)
            ).one()
            connection.execute(
                update(benchmark_runs)
                .where(benchmark_runs.c.id == run_id)
                .values(tasks=tasks, task_runs=runs)
            )

    def benchmark_run(self, run_id: str, parameter: str = "RUN") -> RunRecord:
        """The run with this id, or the only one whose id starts with it; UnknownRun otherwise."""
        with self.statements.transaction() as transaction:
            rows = transaction.rows("RUN", {"b_id": run_id})
            if not rows:
                like = run_id.replace("/", "//").replace("%", "/%").replace("_", "/_") + "%"
                rows = transaction.rows("RUN_BY_PREFIX", {"b_like": like})
            if len(rows) == 1:
                count = {"b_run": rows[0].id}
                return run_record(rows[0], transaction.rows("FINISHED_COUNT", count)[0][0])
        if rows:
            raise UnknownRun(f"{parameter}: {run_id!r} matches several benchmark runs; give more")
        raise UnknownRun(f"{parameter}: no benchmark run {run_id!r} in {self.location.shown}")

    def recent(
        self,
        limit: int = 20,
        *,
        world: str | None = None,
        agent: str | None = None,
        since: str | None = None,
        before: str | None = None,
    ) -> list[RunRecord]:
        """The newest benchmark runs first; `world` and `agent` match exactly, `since` and `before`
        bound the creation time (ISO text, `since` included)."""
        from sqlalchemy import func, select

        from assay.runs.store.tables import benchmark_runs, task_runs

        where = []
        if world:
            where.append(benchmark_runs.c.world == world)
        if agent:
            where.append(benchmark_runs.c.agent == agent)
        if since:
            where.append(benchmark_runs.c.created_at >= since)
        if before:
            where.append(benchmark_runs.c.created_at < before)
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(benchmark_runs)
                .where(*where)
                .order_by(benchmark_runs.c.created_at.desc(), benchmark_runs.c.id.desc())
                .limit(limit)
            ).all()
            counts: dict[str, int] = dict(
                connection.execute(
                    select(task_runs.c.benchmark_run_id, func.count())
                    .where(
                        task_runs.c.benchmark_run_id.in_([row.id for row in rows]),
                        task_runs.c.phase == "completed",
                    )
                    .group_by(task_runs.c.benchmark_run_id)
                ).all()
            )
        return [run_record(row, counts.get(row.id, 0)) for row in rows]

    # Task runs

    def save_task_run(
        self, run_id: str, result: TaskRunResult, *, first: bool = False
    ) -> list[str]:
        """Store a finished task run whole, with its check runs and trajectory, replacing any before
        (`first` says there is none); the ids its check runs got, in order. (A served task run is
        stored by `Progress.save_completed`, which claims it.)"""
        from sqlalchemy import delete, func, insert, select, update

        from assay.runs.store.tables import check_runs, task_runs, trajectories

        parts = split_result(result)
        values = {
            **result_values(result, parts),
            # the mark made as it began stands (a served task run graded after a restart has no other)
            "started_at": func.coalesce(task_runs.c.started_at, result.started_at),
            "finished_at": now(),
        }
        checks = check_values(result.id, parts["checks"])
        where = [task_runs.c.id == result.id, task_runs.c.benchmark_run_id == run_id]
        with self.engine.begin() as connection:
            updated = connection.execute(update(task_runs).where(*where).values(**values)).rowcount
            if not updated:
                position = connection.execute(
                    select(func.count()).where(task_runs.c.benchmark_run_id == run_id)
                ).scalar_one()
                connection.execute(
                    insert(task_runs).values(
                        id=result.id,
                        benchmark_run_id=run_id,
                        position=position,
                        task_id=result.task_id,
                        repeat=result.repeat,
                        split=result.split,
                        created_at=values["finished_at"],
                        **(values | {"started_at": result.started_at}),
                    )
                )
            if not first:
                connection.execute(delete(check_runs).where(check_runs.c.task_run_id == result.id))
                connection.execute(
                    delete(trajectories).where(trajectories.c.task_run_id == result.id)
                )
            if checks:
                connection.execute(insert(check_runs), checks)
            if parts["trajectory"] is not None:
                connection.execute(
                    insert(trajectories).values(
                        task_run_id=result.id, trajectory=parts["trajectory"]
                    )
                )
        return [check["id"] for check in checks]
