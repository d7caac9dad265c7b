"""Load `world.toml` and task files from a world directory into models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.errors import SpecError
from assay.formats.checks import AnswerCheck, Derived, JudgeCheck, SqlCheck
from assay.formats.files import parse_model, read_toml, shown
from assay.formats.task import TaskSpec
from assay.formats.world import WorldSpec

WORLD_FILE = "world.toml"
TASKS_DIR = "tasks"


def read_world(root: Path) -> WorldSpec:
    if not root.is_dir():
        raise SpecError(shown(root), None, "not a directory")
    path = root / WORLD_FILE
    if not path.is_file():
        raise SpecError(shown(path), None, "file not found: a world directory needs world.toml")
    spec = parse_model(WorldSpec, read_toml(path), shown(path))
    for field, name in named_files(spec):
        inside(root, name, shown(path), field)
    return spec


def named_files(spec: WorldSpec) -> list[tuple[str, str]]:
    """Every file `world.toml` names, with the field that names it."""
    named = [(f"tools[{i}]", name) for i, name in enumerate(spec.tools)]
    named += [(f"verifiers[{i}]", name) for i, name in enumerate(spec.verifiers)]
    named.append(("database.schema", spec.database.schema_file))
    if spec.agent.instructions is not None:
        named.append(("agent.instructions", spec.agent.instructions))
    named += [
        (f"roles.{role}.instructions", role_spec.instructions)
        for role, role_spec in spec.roles.items()
        if role_spec.instructions is not None
    ]
    named += [(f"database.seed[{i}]", name) for i, name in enumerate(spec.database.seed)]
    for service, kind in ((name, service.kind) for name, service in spec.services.items()):
        module = kind.rpartition(":")[0]
        if module.endswith(".py"):
            named.append((f"services.{service}", module))
    return named


def inside(root: Path, name: str, file: str, field: str) -> Path:
    """The path `name` names under `root`; a SpecError when it resolves outside the world."""
    try:
        world, path = root.resolve(), (root / name).resolve()
    except (OSError, ValueError) as error:  # a NUL byte, a symlink loop
        raise SpecError(file, field, f"{name!r} is not a usable path: {error}") from None
    if not path.is_relative_to(world):
        raise SpecError(file, field, f"{name!r} is outside the world directory; name files in it")
    return path


def task_files(root: Path) -> list[Path]:
    return sorted((root / TASKS_DIR).glob("*.toml"))


def read_task(
    path: Path,
    backend: str = "sqlite",
    *,
    prove_queries: bool = True,
    data: dict[str, Any] | None = None,
) -> TaskSpec:
    """A task file as its model; `prove_queries=False` leaves out `check_queries` (for a caller
    that keeps that proof for these bytes), `data` is the file's TOML parsed already (for a
    caller that keeps parses)."""
    if data is None:
        data = read_toml(path)
    file = shown(path)
    if "id" in data:
        raise SpecError(file, "id", "unknown key: a task's id is its file name")
    task = parse_model(TaskSpec, {"id": path.stem, **data}, file)
    problem = missing_goal(task)
    if problem is not None:
        raise SpecError(file, "checks", problem)
    if prove_queries:
        check_queries(task, backend, file)
    return task


def missing_goal(task: TaskSpec) -> str | None:
    """Why a task with no goal check can never be graded (optional checks alone verify nothing)."""
    if any(check.type == "goal" for check in task.checks):
        return None
    if not task.checks:
        return "no checks; a task needs at least one goal check"
    kinds = sorted({check.type for check in task.checks})
    return f"no goal check (only {' and '.join(kinds)}); a task needs at least one"


def check_queries(task: TaskSpec, backend: str, file: str) -> None:
    """Every query a task holds is one read-only statement, proved before anything runs."""
    from assay.formats.sqltext import (  # sqlglot: ~0.1 s
        UnsafeSql,
        parameters_in,
        readonly_statement,
    )

    for index, check in enumerate(task.checks):
        for field, sql, params in queries(check):
            try:
                statement = readonly_statement(sql, backend)
            except UnsafeSql as error:
                raise SpecError(file, f"checks[{index}].{field}", f"SQL {error}") from None
            names = parameters_in(statement)
            if "" in names:
                raise SpecError(
                    file, f"checks[{index}].{field}", "use named parameters (:name), not ?"
                )
            missing = sorted(names - params.keys())
            if missing:
                where = f"checks[{index}].{field.removesuffix('sql')}params"
                raise SpecError(file, where, f"no value for :{missing[0]}")


def queries(check: object) -> list[tuple[str, str, dict[str, object]]]:
    """The SQL a check holds, each with its field (`sql`, `expect.sql`, `number.sql`) and params."""
    found: list[tuple[str, str, dict[str, object]]] = []
    if isinstance(check, SqlCheck):
        found.append(("sql", check.sql, check.params))
        if isinstance(check.expect, Derived):
            found.append(("expect.sql", check.expect.sql, check.expect.params))
    if isinstance(check, AnswerCheck) and isinstance(check.number, Derived):
        found.append(("number.sql", check.number.sql, check.number.params))
    if isinstance(check, JudgeCheck):
        found += [(f"queries.{name}", sql, {}) for name, sql in check.queries.items()]
    return found
