"""What a task's validation is keyed on: the bytes of every file that can change its outcome.

A task's standing holds only while its world.toml, schema, seed files, tools, verifiers, custom
service files (`file.py:Class`), the Python files beside them (they may import one another) and the
task file itself are byte for byte what was validated.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel

from assay.formats.layout import is_container_world
from assay.formats.load import WORLD_FILE, named_files
from assay.formats.world import WorldSpec
from assay.world.snapshot import service_seed_files

SANDBOX_TASK_FILE = "task.toml"

MISSING = "missing"


class Fingerprint(BaseModel, defer_build=True):
    """One digest over every file, and each file's own sha256 (by its path in the world)."""

    digest: str
    files: dict[str, str]


def world_files(root: Path, spec: WorldSpec) -> dict[str, str]:
    """The sha256 of each world file every task depends on, by its path relative to `root`; none
    in a container-format world, whose tasks are whole directories."""
    if is_container_world(root):
        return {}
    named = [WORLD_FILE, spec.database.schema_file, *spec.database.seed]
    named += [_relative(root, path) for path in service_seed_files(root, spec)]
    named += [name for field, name in named_files(spec) if field.endswith("instructions")]
    python = [*spec.tools, *spec.verifiers, *_service_files(spec)]
    folders = {(root / name).parent for name in python}
    beside = [str(path.relative_to(root)) for folder in folders for path in folder.glob("*.py")]
    return {name: _sha256(root / name) for name in sorted({*named, *map(_clean, python + beside)})}


def fingerprint(root: Path, task_file: Path, world: Mapping[str, str]) -> Fingerprint:
    """The task file's own hash joined to its world's (`world_files`)."""
    files = {**world, **task_inputs(root, task_file)}
    text = "".join(f"{name}\0{digest}\n" for name, digest in sorted(files.items()))
    return Fingerprint(digest=hashlib.sha256(text.encode()).hexdigest(), files=files)


def task_inputs(root: Path, task_file: Path) -> dict[str, str]:
    """The task file's hash; for a container-format task, every file of its directory (instruction,
    environment, tests, solution), since each can change its outcome."""
    if task_file.name != SANDBOX_TASK_FILE or (root / WORLD_FILE).exists():
        return {_relative(root, task_file): _sha256(task_file)}
    folder = task_file.parent
    found = sorted(path for path in folder.rglob("*") if path.is_file())
    return {_relative(root, path): _sha256(path) for path in found}


def changed_files(before: Mapping[str, str], now: Mapping[str, str]) -> list[str]:
    """The files added, removed or edited between two fingerprints' `files`."""
    return sorted(name for name in {*before, *now} if before.get(name) != now.get(name))


def _service_files(spec: WorldSpec) -> list[str]:
    kinds = [service.kind.rpartition(":")[0] for service in spec.services.values()]
    return [kind for kind in kinds if kind.endswith(".py")]


def _clean(name: str) -> str:
    return Path(name).as_posix().removeprefix("./")


def _relative(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else MISSING
