"""A world ready to run: the loaded world, its registered verifiers, and checks proved to name
only tables and columns the world has."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from assay.errors import SpecError
from assay.spec.files import shown
from assay.spec.load import queries
from assay.spec.sqlnames import unknown_names
from assay.spec.sqltext import UnsafeSql, readonly_statement
from assay.spec.task import TaskSpec
from assay.verify.python import Verifiers, collect_verifiers
from assay.world.live import World
from assay.world.load import load_world


@dataclass
class Benchmark:
    world: World
    verifiers: Verifiers

    @property
    def tasks(self) -> dict[str, TaskSpec]:
        return self.world.tasks

    def close(self) -> None:
        """Release the world's open connections (a PostgreSQL world holds some between runs)."""
        self.world.close()


def open_benchmark(
    path: str | Path, *, build: bool = True, world_db: str | None = None
) -> Benchmark:
    """Load a world and its verifiers; with `build`, make its snapshot now so data errors show early,
    and prove every check's names against it (SpecError naming the task file and the check).

    `world_db` runs the world on that PostgreSQL server (see `load_world`).
    """
    world = load_world(path, world_db)
    verifiers = collect_verifiers(world)
    if build:
        prove_names(world)
    return Benchmark(world, verifiers)


# (snapshot key, task file digest) of tasks already proved in this process: a reload is free.
_proved: set[tuple[str, str]] = set()


def prove_names(world: World) -> None:
    """The static proof of names `assay validate` runs, once per world load: a check naming a
    table or column the snapshot lacks would end every task run not scored, so it is bad input."""
    snapshot = world.snapshot
    for task_id, task in world.tasks.items():
        file = world.task_files[task_id]
        key = (snapshot.key, hashlib.sha256(file.read_bytes()).hexdigest())
        if key in _proved:
            continue
        # checks are SQLite-dialect SQL on every backend
        problems = unknown_check_names(task, snapshot.columns)
        if problems:
            field, problem = problems[0]
            raise SpecError(shown(file), field, problem)
        _proved.add(key)


def unknown_check_names(
    task: TaskSpec, columns: Mapping[str, Sequence[str]], backend: str = "sqlite"
) -> list[tuple[str, str]]:
    """`(checks[i].field, problem)` for each table or column a check's SQL names that `columns`
    (the world's snapshot: table → column names) lacks."""
    found = []
    for index, check in enumerate(task.checks):
        for field, sql, _ in queries(check):
            where = f"checks[{index}].{field}"
            try:
                statement = readonly_statement(sql, backend)
            except UnsafeSql as error:  # loading proves this already; kept for tasks built in code
                found.append((where, f"SQL {error}"))
                continue
            found += [(where, problem) for problem in unknown_names(statement, columns, backend)]
    return found
