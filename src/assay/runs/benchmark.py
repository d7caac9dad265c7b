"""A world ready to run: the loaded world, its registered verifiers, and checks proved to name
only tables and columns the world has."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from assay.errors import SpecError
from assay.formats.checks import CHECK_KINDS, CheckBase
from assay.formats.files import shown
from assay.formats.load import queries
from assay.formats.task import TaskSpec
from assay.registry import import_reference
from assay.runs.kept import keep_trials
from assay.verify.python import Verifiers, collect_verifiers
from assay.world.live import World
from assay.world.load import load_world
from assay.world.proofs import proof_key, proved_before, remember

if TYPE_CHECKING:
    from assay.formats.verifier_choice import VerifierChoice


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
    path: str | Path,
    *,
    build: bool = True,
    world_db: str | None = None,
    verifier_mode: VerifierChoice = "task",
    keep_artifacts: str | Path | None = None,
    left_out: Collection[str] = (),
) -> Benchmark:
    """Load a world and its verifiers; with `build`, make its snapshot now so data errors show early,
    and prove every check's names against it (SpecError naming the task file and the check).

    `world_db` runs the world on that PostgreSQL server, `verifier_mode` separate verifies every
    container-format task in a fresh sandbox (see `load_world`), `keep_artifacts` keeps each of
    their task runs' trial folder in that directory (`assay.runs.kept`), `left_out` names tasks
    not to load at all (withdrawn ones: they never block the rest).
    """
    world = load_world(path, world_db, verifier_mode, left_out)
    if keep_artifacts is not None:
        keep_trials(world, Path(keep_artifacts))
    verifiers = collect_verifiers(world)
    if build:
        prove_names(world)
    return Benchmark(world, verifiers)


# (snapshot key, task file digest, the world's services) of tasks already proved in this process:
# a reload is free.
_proved: set[tuple[str, str, str]] = set()
# The code that decides a proof of names; a proof that passed is kept while it is unchanged.
NAMES_PROOF_CODE = (
    "assay.runs.benchmark",
    "assay.formats.check_union",
    "assay.formats.checks",
    "assay.formats.load",
    "assay.formats.sqlnames",
    "assay.formats.sqltext",
)


def prove_names(world: World) -> None:
    """The static proof of names `assay validate` runs, once per world load: a check naming a
    table or column the snapshot lacks would end every task run not scored, so it is bad input."""
    snapshot = world.snapshot
    services = service_kinds(world)
    kinds = ",".join(f"{name}={kind}" for name, kind in sorted(services.items()))
    for task_id, task in world.tasks.items():
        file = world.task_files[task_id]
        key = (snapshot.key, hashlib.sha256(file.read_bytes()).hexdigest(), kinds)
        if key in _proved:
            continue
        # a typed check's proof runs code outside the proving modules: it is never kept
        typed = any(_runs_outside_proof(check) for check in task.checks)
        kept = None if typed else proof_key(NAMES_PROOF_CODE, "names", *key)
        if kept is not None and proved_before(kept):
            _proved.add(key)
            continue
        # checks are SQLite-dialect SQL on every backend
        problems = unknown_check_names(task, snapshot.columns, services=services)
        if problems:
            field, problem = problems[0]
            raise SpecError(shown(file), field, problem)
        _proved.add(key)
        if kept is not None:
            remember(kept)


def service_kinds(world: World) -> dict[str, str]:
    """The world's services: name → kind."""
    return {name: kind.kind for name, (kind, _) in world.services.items()}


def unknown_check_names(
    task: TaskSpec,
    columns: Mapping[str, Sequence[str]],
    backend: str = "sqlite",
    services: Mapping[str, str] | None = None,
) -> list[tuple[str, str]]:
    """`(checks[i].field, problem)` for each table or column a check's SQL names that `columns`
    (the world's snapshot: table → column names) lacks."""
    from assay.formats.sqlnames import unknown_names  # sqlglot: only when a proof is not kept
    from assay.formats.sqltext import UnsafeSql, readonly_statement

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
    if services is not None:
        found += typed_check_problems(task, services)
    return found


def _runs_outside_proof(check: CheckBase) -> bool:
    """A typed check (its paths compile by its own kind's code) or a user's kind of check."""
    return check.compiler is not None or check.kind not in CHECK_KINDS.builtins


def typed_check_problems(task: TaskSpec, services: Mapping[str, str]) -> list[tuple[str, str]]:
    """`(checks[i].field, problem)` for a check reading a service the world lacks (its kind's
    `reads_service`), or whose paths, resource types or parameters do not compile."""
    found: list[tuple[str, str]] = []
    for index, check in enumerate(task.checks):
        kind, compiler = check.reads_service, check.compiler
        if kind is None:
            continue
        named = getattr(check, "service", None)
        of_kind = sorted(name for name, found_kind in services.items() if found_kind == kind)
        if named is not None and services.get(named) != kind:
            problem = f"no {kind} service named {named!r} (this world has: {', '.join(of_kind) or 'none'})"
            found.append((f"checks[{index}].service", problem))
            continue
        if named is None and len(of_kind) != 1:
            where = "no" if not of_kind else "more than one"
            found.append(
                (
                    f"checks[{index}].assert",
                    f"the world has {where} {kind} service; name one with service",
                )
            )
            continue
        if compiler is None:
            continue
        compile_paths = import_reference(compiler)
        found += [(f"checks[{index}].{field}", problem) for field, problem in compile_paths(check)]
    return found
