"""Scaffolding: a new verifier that fails on purpose, registered in its world and task; a new task.

TOML is edited with tomlkit so that the comments and order a person wrote survive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import tomlkit
from tomlkit.items import AoT, Array

from assay.errors import SpecError, UsageError
from assay.formats.files import read_toml, shown
from assay.formats.load import TASKS_DIR, WORLD_FILE, read_world
from assay.trust.templates import task_file, verifier_module
from assay.verify.python import Verifier
from assay.world.modules import load_file

VERIFIERS_DIR = "verifiers"
ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass
class Scaffolded:
    """What a scaffolding command did, and what the user should do next."""

    created: Path
    registered: list[str] = field(default_factory=list)
    next_step: str = ""


def add_verifier(world: str | Path, verifier_id: str, task_id: str, name: str) -> Scaffolded:
    """Write a failing verifier, list its module in world.toml and name it in a python check."""
    root = Path(world)
    spec = read_world(root)
    _check_id(verifier_id, "VERIFIER_ID")
    if not name.strip():
        raise UsageError("--name: must not be empty")
    task = _task_path(root, task_id)
    read_toml(
        task
    )  # a task file that is not TOML is bad input, reported before anything is written
    defined = _defined_verifiers(root, spec.verifiers)
    if verifier_id in defined:
        raise UsageError(
            f"VERIFIER_ID: verifier {verifier_id} already exists in {defined[verifier_id]}"
        )
    function = _function_name(verifier_id)
    module = root / VERIFIERS_DIR / f"{function}.py"
    if module.exists():
        raise UsageError(f"VERIFIER_ID: {shown(module)} already exists")
    module.parent.mkdir(exist_ok=True)
    module.write_text(verifier_module(verifier_id, name, task_id, function), encoding="utf-8")
    relative = module.relative_to(root).as_posix()
    _register_module(root / WORLD_FILE, relative)
    _add_python_check(task, name, verifier_id)
    return Scaffolded(
        created=module,
        registered=[
            f"{relative} in {shown(root / WORLD_FILE)} (verifiers)",
            f"{verifier_id} in {shown(task)} (checks)",
        ],
        next_step=f"replace the failing TODO check in {shown(module)}.",
    )


def add_task(
    world: str | Path,
    task_id: str,
    *,
    title: str | None = None,
    role: str | None = None,
    split: str = "train",
) -> Scaffolded:
    """Write `tasks/<id>.toml` with every section sketched and commented; it fails validation until filled in."""
    root = Path(world)
    spec = read_world(root)
    _check_id(task_id, "TASK_ID")
    if split not in ("train", "dev", "holdout"):
        raise UsageError(f"--split: {split!r} is not train, dev or holdout")
    if role is None:
        if not spec.roles:
            raise UsageError(f"--role: {shown(root / WORLD_FILE)} defines no roles; add one first")
        role = next(iter(spec.roles))
    if role not in spec.roles:
        known = ", ".join(sorted(spec.roles)) or "none"
        raise UsageError(f"--role: unknown role {role!r} (roles: {known})")
    path = root / TASKS_DIR / f"{task_id}.toml"
    if path.exists():
        raise UsageError(f"TASK_ID: task {task_id} already exists ({shown(path)})")
    tools = spec.roles[role].tools
    text = task_file(title or f"TODO: {task_id}", split, role, tools[0] if tools else "a_tool")
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return Scaffolded(
        created=path,
        next_step=f"replace the TODOs in {shown(path)}, then run "
        f"`assay validate {shown(root)} --task {task_id}`.",
    )


def _check_id(value: str, parameter: str) -> None:
    if not ID.match(value):
        raise UsageError(
            f"{parameter}: {value!r} is not an id (letters, digits, '_', '.', '-'; "
            "starting with a letter or digit)"
        )


def _task_path(root: Path, task_id: str) -> Path:
    path = root / TASKS_DIR / f"{task_id}.toml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in (root / TASKS_DIR).glob("*.toml"))) or "none"
        raise UsageError(f"--task: unknown task {task_id!r} (tasks: {known})")
    return path


def _defined_verifiers(root: Path, modules: list[str]) -> dict[str, str]:
    """Each verifier id the world's registered modules define, with the module that defines it."""
    defined: dict[str, str] = {}
    for name in modules:
        module = load_file(root / name)
        for value in vars(module).values():
            if isinstance(value, Verifier):
                defined.setdefault(value.id, name)
    return defined


def _function_name(verifier_id: str) -> str:
    """`VER-007` → `ver_007`: a Python name for the function and its module."""
    name = re.sub(r"[^0-9a-z]+", "_", verifier_id.lower()).strip("_") or "verifier"
    return name if name[0].isalpha() else f"verifier_{name}"


def _register_module(world_file: Path, module: str) -> None:
    document = tomlkit.parse(world_file.read_text(encoding="utf-8"))
    listed = document.get("verifiers")
    if listed is None:
        document["verifiers"] = [module]
    elif isinstance(listed, Array):
        if module not in listed:
            listed.append(module)
    else:
        raise SpecError(shown(world_file), "verifiers", "must be a list of Python files")
    world_file.write_text(tomlkit.dumps(document), encoding="utf-8")


def _add_python_check(task: Path, name: str, verifier_id: str) -> None:
    document = tomlkit.parse(task.read_text(encoding="utf-8"))
    fields = {"name": name, "assert": "python", "verifier": verifier_id}
    checks = document.get("checks")
    if isinstance(checks, Array):
        inline = tomlkit.inline_table()
        inline.update(fields)
        checks.append(inline)
    else:
        table = tomlkit.table()
        table.update(fields)
        table.add(tomlkit.nl())  # the blank line that keeps the next section apart
        if isinstance(checks, AoT):
            checks.append(table)
        elif checks is None:
            document.append("checks", tomlkit.aot())
            document["checks"].append(table)
        else:
            raise SpecError(shown(task), "checks", "must be a list of checks")
    task.write_text(tomlkit.dumps(document), encoding="utf-8")
