"""Load `world.toml` and task files from a world directory into models."""

from __future__ import annotations

from pathlib import Path

from assay.errors import SpecError
from assay.spec.checks import AnswerCheck, Derived, SqlCheck
from assay.spec.files import parse_model, read_toml, shown
from assay.spec.sqltext import UnsafeSql, readonly_statement
from assay.spec.task import TaskSpec
from assay.spec.world import WorldSpec

WORLD_FILE = "world.toml"
TASKS_DIR = "tasks"


def read_world(root: Path) -> WorldSpec:
    if not root.is_dir():
        raise SpecError(shown(root), None, "not a directory")
    path = root / WORLD_FILE
    if not path.is_file():
        raise SpecError(shown(path), None, "file not found: a world directory needs world.toml")
    return parse_model(WorldSpec, read_toml(path), shown(path))


def task_files(root: Path) -> list[Path]:
    return sorted((root / TASKS_DIR).glob("*.toml"))


def read_task(path: Path, backend: str = "sqlite") -> TaskSpec:
    data = read_toml(path)
    file = shown(path)
    if "id" in data:
        raise SpecError(file, "id", "unknown key: a task's id is its file name")
    task = parse_model(TaskSpec, {"id": path.stem, **data}, file)
    check_queries(task, backend, file)
    return task


def check_queries(task: TaskSpec, backend: str, file: str) -> None:
    """Every query a task holds is one read-only statement, proved before anything runs."""
    for index, check in enumerate(task.checks):
        for field, sql in _queries(check):
            try:
                readonly_statement(sql, backend)
            except UnsafeSql as error:
                raise SpecError(file, f"checks[{index}].{field}", f"SQL {error}") from None


def _queries(check: object) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    if isinstance(check, SqlCheck):
        found.append(("sql", check.sql))
        if isinstance(check.expect, Derived):
            found.append(("expect.sql", check.expect.sql))
    if isinstance(check, AnswerCheck) and isinstance(check.number, Derived):
        found.append(("number.sql", check.number.sql))
    return found
