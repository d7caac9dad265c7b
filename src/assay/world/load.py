"""Load a world directory and prove that every name its files use exists."""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from assay.errors import SpecError, UsageError
from assay.formats.files import shown
from assay.formats.layout import is_container_world
from assay.formats.load import TASKS_DIR, read_world, task_files
from assay.formats.task import TaskSpec
from assay.formats.world import WorldSpec
from assay.registry import Registry
from assay.world.backend import Backend, SqliteBackend, open_backend
from assay.world.live import World
from assay.world.loadable import QUERIES_PROOF_CODE, read_loadable_task, unknown_name
from assay.world.modules import load_file
from assay.world.parsed import ParsedFiles
from assay.world.proofs import proof_key, proved_before, remember
from assay.world.services import Service, service_class
from assay.world.tools import BUILTIN_TOOLS, Tool

if TYPE_CHECKING:
    from assay.formats.verifier_choice import VerifierChoice


def load_world(
    path: str | Path,
    world_db: str | None = None,
    verifier_mode: VerifierChoice = "task",
    left_out: Collection[str] = (),
) -> World:
    """Read `world.toml`, its Python files and every task; raise SpecError on the first problem.

    `world_db` is a PostgreSQL server URL to run the world on (else $ASSAY_WORLD_DB, else world.toml).
    `verifier_mode` separate verifies every container-format task in a fresh sandbox.
    `left_out` names tasks not to read at all (withdrawn ones, which may not load).
    """
    root = Path(path)
    if verifier_mode != "task" and not is_container_world(root):
        raise UsageError(
            f"--verifier-mode: {verifier_mode} is for container-format tasks; "
            f"{shown(root)} is a database world, whose checks read its state from outside"
        )
    world, _ = _load(
        root, strict=True, world_db=world_db, verifier_mode=verifier_mode, left_out=left_out
    )
    return world


def load_world_tolerant(
    path: str | Path, world_db: str | None = None
) -> tuple[World, dict[str, SpecError]]:
    """The world with every task that loads, and the error of each task that does not, by task id.

    A problem with the world itself (world.toml, tools, services, verifier modules) still raises.
    """
    return _load(Path(path), strict=False, world_db=world_db)


class WorldLoader(Protocol):
    """Loads a world of one kind: the world, and the error of each task that does not load."""

    def __call__(
        self,
        root: Path,
        *,
        strict: bool,
        world_db: str | None,
        verifier_mode: VerifierChoice,
        left_out: Collection[str],
    ) -> tuple[World, dict[str, SpecError]]: ...


def world_kind(root: Path) -> str:
    """`container` for container-format tasks (task.toml, no world.toml), else `database`."""
    return "container" if is_container_world(root) else "database"


def _load(
    root: Path,
    *,
    strict: bool,
    world_db: str | None,
    verifier_mode: VerifierChoice = "task",
    left_out: Collection[str] = (),
) -> tuple[World, dict[str, SpecError]]:
    load = WORLD_KINDS.get(world_kind(root))
    return load(
        root, strict=strict, world_db=world_db, verifier_mode=verifier_mode, left_out=left_out
    )


def load_database_world(
    root: Path,
    *,
    strict: bool,
    world_db: str | None,
    verifier_mode: VerifierChoice,
    left_out: Collection[str],
) -> tuple[World, dict[str, SpecError]]:
    """A world.toml world: its database, services, tools and tasks (`verifier_mode` is always
    `task`: its checks read the state from outside)."""
    spec = read_world(root)
    world_file = shown(root / "world.toml")
    services = _load_services(root, spec, world_file)
    tools = _load_tools(root, spec, services)
    _check_roles(spec, tools, world_file)
    verifier_modules = [load_file(root / name) for name in spec.verifiers]
    backend = open_backend(root, spec, world_db)
    prove_task = _portable_proof(backend, root, spec)
    tasks: dict[str, TaskSpec] = {}
    files: dict[str, Path] = {}
    rejected: dict[str, SpecError] = {}
    parsed = ParsedFiles(root)
    for file in task_files(root):
        if file.stem in left_out:
            continue
        try:
            task = read_loadable_task(file, parsed, spec, tools, prove_task)
        except SpecError as error:
            if strict:
                raise
            rejected[file.stem] = error
            continue
        tasks[task.id] = task
        files[task.id] = file
    parsed.save()
    world = World(
        root, spec, tools, services, tasks, files, verifier_modules, backend, world_db=world_db
    )
    world.instructions = role_instructions(root, spec, world_file)
    world.left_out = frozenset(left_out)
    return world, rejected


WORLD_KINDS: Registry[WorldLoader] = Registry("world kind")
WORLD_KINDS.declare("database", load_database_world)
WORLD_KINDS.declare("container", "assay.world.container.dataset:load_container_world")


def _portable_proof(
    backend: Backend, root: Path, spec: WorldSpec
) -> Callable[[TaskSpec, str], None] | None:
    """On PostgreSQL, prove that the seeds' and tools' statements carry over, and return the proof
    of a task's checks (run as each task loads); None on SQLite."""
    if isinstance(backend, SqliteBackend):
        return None
    from assay.world.postgres.proof import prove_task, prove_world, translator_for

    translator = translator_for(root, spec)
    prove_world(translator, root, spec)
    return lambda task, file: prove_task(translator, task, file)


def role_instructions(root: Path, spec: WorldSpec, file: str) -> dict[str, str]:
    """Per role, what its agents are told: the world's `[agent] instructions` file, then the
    role's own; SpecError naming the field when a file is missing or not UTF-8 text."""
    shared = _instructions(root, spec.agent.instructions, file, "agent.instructions")
    found = {}
    for role, role_spec in spec.roles.items():
        own = _instructions(root, role_spec.instructions, file, f"roles.{role}.instructions")
        text = "\n\n".join(part for part in (shared, own) if part)
        if text:
            found[role] = text
    return found


def _instructions(root: Path, name: str | None, file: str, field: str) -> str:
    if name is None:
        return ""
    path = root / name
    try:
        return path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        raise SpecError(file, field, f"{name!r} not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise SpecError(file, field, f"{name!r} cannot be read as UTF-8 text: {error}") from None


def require_tasks(root: Path) -> None:
    """A world to run or validate holds at least one task file; SpecError naming tasks/ if not."""
    if task_files(root) or is_container_world(root):
        return
    folder = root / TASKS_DIR
    found = "holds no .toml file" if folder.is_dir() else "no such directory"
    raise SpecError(shown(folder), None, f"{found}; a world needs at least one tasks/<id>.toml")


def _load_tools(
    root: Path, spec: WorldSpec, services: dict[str, tuple[type[Service], dict[str, Any]]]
) -> dict[str, Tool]:
    """Built-in tools, the tools of each service kind the world has, then the world's own."""
    tools: dict[str, Tool] = dict(BUILTIN_TOOLS)
    for kind, _ in services.values():
        tools.update((found.name, found) for found in kind.tools)
    for name in spec.tools:
        module = load_file(root / name)
        for found in vars(module).values():
            if not isinstance(found, Tool) or tools.get(found.name) is found:
                continue
            if found.name in tools:
                raise SpecError(shown(root / name), None, f"tool {found.name} is defined twice")
            tools[found.name] = found
    return tools


def _check_roles(spec: WorldSpec, tools: dict[str, Tool], file: str) -> None:
    for role, role_spec in spec.roles.items():
        for index, name in enumerate(role_spec.tools):
            if name not in tools:
                raise SpecError(
                    file, f"roles.{role}.tools[{index}]", unknown_name("tool", name, tools)
                )


def _load_services(
    root: Path, spec: WorldSpec, file: str
) -> dict[str, tuple[type[Service], dict[str, Any]]]:
    services = {}
    for name, service in spec.services.items():
        try:
            kind = service_class(service.kind, root)
        except LookupError as error:
            raise SpecError(file, f"services.{name}", str(error)) from None
        _check_options(kind, service.options, file, f"services.{name}")
        services[name] = (kind, service.options)
    return services


def _check_options(kind: type[Service], options: dict[str, Any], file: str, where: str) -> None:
    """Options the kind takes, and the SQL among them proved one read-only statement, as checks are."""
    known = kind.options_known
    for option in options:
        if known is not None and option not in known:
            names = ", ".join(sorted(known)) or "none"
            raise SpecError(file, f"{where}.{option}", f"unknown option (known: {names})")
    for option in kind.sql_options:
        sql = options.get(option)
        if sql is None:
            continue
        if not isinstance(sql, str):
            raise SpecError(file, f"{where}.{option}", "must be a string holding one SELECT")
        _prove_service_query(sql, file, f"{where}.{option}")


def _prove_service_query(sql: str, file: str, field: str) -> None:
    """One read-only statement, proved once for this text and this code."""
    kept = proof_key(QUERIES_PROOF_CODE, "service query", sql)
    if proved_before(kept):
        return
    from assay.formats.sqltext import UnsafeSql, readonly_statement  # sqlglot: ~0.1 s

    try:
        readonly_statement(sql, "sqlite", what="service query")  # SQLite dialect everywhere
    except UnsafeSql as error:
        raise SpecError(file, field, f"SQL {error}") from None
    remember(kept)
