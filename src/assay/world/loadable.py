"""Whether a task is loadable: the one home of every proof that a task can be run and graded, and
of the one-line error naming its file and field when it cannot.

A task is proved in two steps. As its world loads, its file must parse, name only the roles and
tools its world has, and hold only read-only SQL (`read_loadable_task`). Once the world is built,
its checks must be gradable at all: a goal check, registered verifiers, tables and columns the
snapshot has, the services typed checks read, paths that compile (`grading_problems`). `assay run`
refuses a world on the first problem (`prove_gradable`); `assay validate` lists them all as the
task's failed static proof, in the same words.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import SpecError
from assay.formats.checks import CHECK_KINDS, CheckBase, PythonCheck
from assay.formats.files import read_bytes, shown
from assay.formats.load import check_queries, missing_goal, queries, read_task
from assay.formats.task import TaskSpec
from assay.formats.world import WorldSpec
from assay.registry import import_reference
from assay.world.parsed import ParsedFiles
from assay.world.proofs import proof_key, proved_before, remember

if TYPE_CHECKING:
    from assay.world.live import World

Problems = list[tuple[str, str]]  # (field, problem), the field as the task file spells it
# The code that proves a task's queries read-only; a proof that passed is kept while it is unchanged.
QUERIES_PROOF_CODE = (
    "assay.formats.check_union",
    "assay.formats.checks",
    "assay.formats.load",
    "assay.formats.sqltext",
)
# The code that decides whether a task can be graded; a proof that passed is kept likewise.
GRADING_PROOF_CODE = (
    "assay.world.loadable",
    "assay.formats.check_union",
    "assay.formats.checks",
    "assay.formats.load",
    "assay.formats.sqlnames",
    "assay.formats.sqltext",
)


def read_loadable_task(
    file: Path,
    parsed: ParsedFiles,
    spec: WorldSpec,
    tools: Mapping[str, Any],
    portable: Callable[[TaskSpec, str], None] | None = None,
) -> TaskSpec:
    """A task file that loads in its world: parsed (once for these bytes), its queries proved
    read-only (once for these bytes and this code), every role and tool it names known, and on
    PostgreSQL its checks proved to carry over (`portable`); SpecError naming file and field."""
    content = read_bytes(file)
    task = read_task(file, prove_queries=False, data=parsed.data(file, content))
    kept = proof_key(QUERIES_PROOF_CODE, "queries", hashlib.sha256(content).hexdigest())
    if not proved_before(kept):
        check_queries(task, "sqlite", shown(file))  # SQLite-dialect SQL on every backend
        remember(kept)
    check_task_names(task, spec, tools, shown(file))
    if portable is not None:
        portable(task, shown(file))
    return task


def check_task_names(task: TaskSpec, spec: WorldSpec, tools: Mapping[str, Any], file: str) -> None:
    """Every role and tool a task names exists in its world."""
    if task.role not in spec.roles:
        raise SpecError(file, "role", unknown_name("role", task.role, spec.roles))
    for index, fault in enumerate(task.faults):
        if fault.tool not in tools:
            raise SpecError(file, f"faults[{index}].tool", unknown_name("tool", fault.tool, tools))
    for index, change in enumerate(task.customer.changes):
        tool = change.at.removeprefix("after:")
        if change.at.startswith("after:") and tool not in tools:
            raise SpecError(
                file, f"customer.changes[{index}].at", unknown_name("tool", tool, tools)
            )
    scripts = [("solution", task.solution.steps)] if task.solution else []
    scripts += [(f"wrong[{i}]", wrong.steps) for i, wrong in enumerate(task.wrong)]
    for where, steps in scripts:
        for index, step in enumerate(steps):
            if step.call is not None and step.call not in tools:
                raise SpecError(
                    file, f"{where}.steps[{index}].call", unknown_name("tool", step.call, tools)
                )


def unknown_name(what: str, name: str, known: Collection[str]) -> str:
    names = ", ".join(sorted(known)) or "none"
    return f"unknown {what} {name!r} (known: {names})"


@dataclass(frozen=True)
class GradingFacts:
    """What a built world offers a task's checks: the snapshot's tables and columns (None: not
    built, so names are not proved), its services (name → kind) and its registered verifiers."""

    columns: Mapping[str, Sequence[str]] | None
    services: Mapping[str, str]
    verifiers: Collection[str]
    backend: str = "sqlite"

    def key(self) -> str:
        """What a kept proof depends on besides the task's file and the snapshot."""
        kinds = ",".join(f"{name}={kind}" for name, kind in sorted(self.services.items()))
        return f"{kinds};{','.join(sorted(self.verifiers))}"


def grading_facts(world: World, verifiers: Collection[str], *, built: bool = True) -> GradingFacts:
    """The facts of `world` (its snapshot's columns when `built`) with these verifier ids."""
    columns = world.snapshot.columns if built else None  # SQLite-dialect SQL on every backend
    return GradingFacts(columns, service_kinds(world), frozenset(verifiers))


def service_kinds(world: World) -> dict[str, str]:
    """The world's services: name → kind."""
    return {name: kind.kind for name, (kind, _) in world.services.items()}


def grading_problems(task: TaskSpec, facts: GradingFacts) -> Problems:
    """Every reason a loaded task cannot be graded, `(field, problem)`; none when it can."""
    found = unknown_verifiers(task, facts.verifiers)
    if facts.columns is not None:
        found += unknown_check_names(task, facts.columns, facts.backend)
    found += typed_check_problems(task, facts.services)
    problem = missing_goal(task)  # a file is refused as it loads; a task built in code is not
    if problem is not None:
        found.append(("checks", problem))
    return found


def unknown_verifiers(task: TaskSpec, verifiers: Collection[str]) -> Problems:
    """`(checks[i].verifier, problem)` for each python check naming an unregistered verifier."""
    known = ", ".join(sorted(verifiers)) or "none registered"
    return [
        (f"checks[{index}].verifier", f"unknown verifier {check.verifier!r} (known: {known})")
        for index, check in enumerate(task.checks)
        if isinstance(check, PythonCheck) and check.verifier not in verifiers
    ]


def unknown_check_names(
    task: TaskSpec, columns: Mapping[str, Sequence[str]], backend: str = "sqlite"
) -> Problems:
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
    return found


def typed_check_problems(task: TaskSpec, services: Mapping[str, str]) -> Problems:
    """`(checks[i].field, problem)` for a check reading a service the world lacks (its kind's
    `reads_service`), or whose paths, resource types or parameters do not compile."""
    found: Problems = []
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


# (snapshot key, task file digest, the facts' key) of tasks already proved in this process:
# a reload is free.
_proved: set[tuple[str, str, str]] = set()


def prove_gradable(world: World, verifiers: Collection[str], *, built: bool = True) -> None:
    """SpecError naming the task file and field of the first task of `world` that cannot be
    graded (`grading_problems`), once per world load: such a task would end every task run not
    scored, so it is bad input. `built`: prove names against the snapshot (built now if not yet)."""
    facts = grading_facts(world, verifiers, built=built)
    snapshot = world.snapshot.key if built else "unbuilt"
    for task_id, task in world.tasks.items():
        file = world.task_files[task_id]
        key = (snapshot, hashlib.sha256(file.read_bytes()).hexdigest(), facts.key())
        if key in _proved:
            continue
        # a typed check's proof runs code outside the proving modules: it is never kept
        typed = any(_runs_outside_proof(check) for check in task.checks)
        kept = None if typed or not built else proof_key(GRADING_PROOF_CODE, "grading", *key)
        if kept is not None and proved_before(kept):
            _proved.add(key)
            continue
        problems = grading_problems(task, facts)
        if problems:
            field, problem = problems[0]
            raise SpecError(shown(file), field, problem)
        _proved.add(key)
        if kept is not None:
            remember(kept)


def _runs_outside_proof(check: CheckBase) -> bool:
    """A typed check (its paths compile by its own kind's code) or a user's kind of check."""
    return check.compiler is not None or check.kind not in CHECK_KINDS.builtins
