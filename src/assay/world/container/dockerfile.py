"""The Dockerfile subset assay honours (docs/contracts/container.md §4): parsed into instructions,
planned stage by stage as steps, and the key a built layer is cached by."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from assay.errors import SpecError
from assay.formats.files import read_text, shown
from assay.world.container.dockercontext import CopySources
from assay.world.container.dockerignore import read_dockerignore
from assay.world.container.dockerparse import Instruction, escape_character, parse_dockerfile
from assay.world.container.dockerstage import StagePlanner
from assay.world.container.dockersteps import (
    DOCKER_DEFAULT_PATH,
    BuildPlan,
    BuildStep,
    CopyStep,
    FetchStep,
    RunStep,
    StageCopyStep,
    UnpackStep,
    WorkdirStep,
    WriteStep,
)
from assay.world.container.dockerwords import WordError, words

__all__ = [
    "BaseEnv",
    "BuildPlan",
    "BuildStep",
    "CopyStep",
    "FetchStep",
    "Instruction",
    "RunStep",
    "StageCopyStep",
    "UnpackStep",
    "WorkdirStep",
    "WriteStep",
    "build_key",
    "docker_default_env",
    "parse_dockerfile",
    "plan_build",
]

BaseEnv = Callable[[str], Mapping[str, str]]


def docker_default_env(image: str) -> dict[str, str]:
    """What Docker gives a container of an image that sets no environment: its default PATH."""
    return {"PATH": DOCKER_DEFAULT_PATH}


def plan_build(
    dockerfile: Path, context: Path, *, base_env: BaseEnv = docker_default_env
) -> BuildPlan:
    """The build steps of the Dockerfile's last stage, the stages it is built FROM, and the
    earlier stages it copies from (each a plan of its own, in `stages`).

    base_env: the default environment of a base image, by name; each stage's ENV, ARG and the
    substitutions in them start from it (`ENV PATH=/x:$PATH` needs the image's PATH).

    COPY and ADD sources are checked against the context here; a missing source, one outside
    the context or left out by .dockerignore, or a line Docker could not read is a SpecError
    naming the file and the line.
    """
    text = read_text(dockerfile)
    build = Build(dockerfile, context, escape_character(text), base_env)
    build.split(parse_dockerfile(text))
    return build.plan()


@dataclass
class _Stage:
    name: str
    image: str
    line: int
    instructions: list[Instruction] = field(default_factory=list)


class Build:
    """The whole Dockerfile: its stages, its global ARGs, and what planning them noted."""

    def __init__(self, dockerfile: Path, context: Path, escape: str, base_env: BaseEnv):
        self.where = shown(dockerfile)
        self.escape = escape
        self.base_env = base_env
        self.sources = CopySources(context, self.where, read_dockerignore(dockerfile, context))
        self.global_args: dict[str, str] = {}
        self.notes: list[str] = []
        self.incomplete: list[str] = []
        self.inputs: list[str] = []
        self.stages: list[_Stage] = []
        self.planned: dict[int, StagePlanner] = {}
        self.copied: dict[str, BuildPlan] = {}  # the stages copied from, in the order to build

    def split(self, instructions: list[Instruction]) -> None:
        for instruction in instructions:
            if instruction.keyword == "FROM":
                image, name = self.from_line(instruction)
                self.stages.append(_Stage(name or str(len(self.stages)), image, instruction.line))
            elif self.stages:
                self.stages[-1].instructions.append(instruction)
            elif instruction.keyword == "ARG":
                self.global_arg(instruction)
            else:
                self.refuse(instruction, "only ARG may come before the first FROM")
        if not self.stages:
            raise SpecError(self.where, None, "no FROM instruction")

    def plan(self) -> BuildPlan:
        final = self.stage(len(self.stages) - 1)
        ignored = [f"multi_stage_ignored:{stage.name}" for index, stage in enumerate(self.stages)]
        ignored = [note for index, note in enumerate(ignored) if index not in self.planned]
        notes = [*ignored, *self.notes]  # which root stands for the image is the table's to say
        plan = final.plan()
        return BuildPlan(
            plan.base_image,
            plan.steps,
            plan.env,
            plan.workdir,
            plan.user,
            notes,
            incomplete=list(self.incomplete),
            entrypoint=plan.entrypoint,
            stages=dict(self.copied),
            inputs=list(self.inputs),
        )

    def stage(self, index: int) -> StagePlanner:
        """Stage `index` planned (once), after the earlier stage it is built FROM, if any."""
        if index not in self.planned:
            stage = self.stages[index]
            parent = self.named(stage.image, before=index, numbered=False)
            planner = StagePlanner(
                self, index, stage.image, None if parent is None else self.stage(parent)
            )
            for instruction in stage.instructions:
                planner.apply(instruction)
            self.planned[index] = planner
        return self.planned[index]

    def copied_stage(self, name: str, before: int) -> str | None:
        """The key of the earlier stage `COPY --from=name` names (planned, and listed to be built
        before the stages that copy from it); None when no stage has that name or number."""
        index = self.named(name, before=before, numbered=True)
        if index is None:
            return None
        planned = self.stage(index)
        key = str(index)
        if key not in self.copied:
            self.copied[key] = planned.plan()
        return key

    def named(self, name: str, *, before: int, numbered: bool) -> int | None:
        for index, stage in enumerate(self.stages[:before]):
            if stage.name.lower() == name.lower() and not stage.name.isdigit():
                return index
        if numbered and name.isdigit() and int(name) < before:
            return int(name)
        return None

    def refuse(self, instruction: Instruction, message: str) -> NoReturn:
        raise SpecError(self.where, f"line {instruction.line}", message)

    def from_line(self, instruction: Instruction) -> tuple[str, str | None]:
        found = [w for w in self._global_words(instruction) if not w.startswith("--")]
        if not found or len(found) not in (1, 3) or (len(found) == 3 and found[1].lower() != "as"):
            self.refuse(instruction, "FROM takes an image and an optional 'AS name'")
        return found[0], found[2] if len(found) == 3 else None

    def global_arg(self, instruction: Instruction) -> None:
        for name, value in self.arg_pairs(instruction, self._global_words(instruction)):
            if value is not None:
                self.global_args[name] = value

    def arg_pairs(self, instruction: Instruction, found: list[str]) -> list[tuple[str, str | None]]:
        if not found:
            self.refuse(instruction, "ARG needs a name")
        pairs = []
        for item in found:
            name, equals, value = item.partition("=")
            if not name:
                self.refuse(instruction, f"ARG {item!r} has no name")
            pairs.append((name, value if equals else None))
        return pairs

    def _global_words(self, instruction: Instruction) -> list[str]:
        try:
            return words(instruction.arguments, self.global_args, self.escape)
        except WordError as error:
            self.refuse(instruction, f"{instruction.keyword}: {error}")


def build_key(dockerfile: Path, context: Path) -> str:
    """A sha256 of the Dockerfile and every file of the context (path, mode, bytes) that
    .dockerignore leaves in, for caching."""
    digest = hashlib.sha256()
    _frame(digest, dockerfile.read_bytes())
    left_out = read_dockerignore(dockerfile, context).left_out(context)
    for path in sorted(_context_entries(context, left_out)):
        info = path.lstat()
        _frame(digest, path.relative_to(context).as_posix().encode())
        _frame(digest, oct(info.st_mode).encode())  # the file type and permission bits
        if stat.S_ISLNK(info.st_mode):
            _frame(digest, os.readlink(path).encode())
        elif stat.S_ISREG(info.st_mode):
            _frame(digest, path.read_bytes())
    return digest.hexdigest()


def _context_entries(context: Path, left_out: frozenset[Path]) -> list[Path]:
    entries = []
    for directory, subdirectories, files in os.walk(context):
        subdirectories[:] = [
            name for name in subdirectories if Path(directory, name) not in left_out
        ]
        names = subdirectories + [name for name in files if Path(directory, name) not in left_out]
        entries += [Path(directory, name) for name in names]
    return entries


def _frame(digest: hashlib._Hash, data: bytes) -> None:
    # Length-prefixed, so that no two different contexts can hash the same bytes.
    digest.update(len(data).to_bytes(8, "big"))
    digest.update(data)
