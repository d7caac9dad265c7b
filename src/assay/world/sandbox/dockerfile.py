"""The Dockerfile subset assay honours (SPEC §3.2): parsed into instructions, then planned as steps."""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import shlex
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from assay.errors import SpecError
from assay.spec.files import read_text, shown
from assay.world.sandbox.dockercopy import CopySources
from assay.world.sandbox.dockerparse import HEREDOC, Instruction, escape_character, parse_dockerfile
from assay.world.sandbox.dockerwords import WordError, substituted, word, words

__all__ = [
    "BuildPlan",
    "BuildStep",
    "CopyStep",
    "Instruction",
    "RunStep",
    "WorkdirStep",
    "build_key",
    "parse_dockerfile",
    "plan_build",
]

ONLY_NOTED = [
    "CMD",
    "ENTRYPOINT",
    "EXPOSE",
    "LABEL",
    "HEALTHCHECK",
    "VOLUME",
    "SHELL",
    "STOPSIGNAL",
    "ONBUILD",
    "MAINTAINER",
]
HEREDOC_ALONE = re.compile(
    r"<<(-?)([\"']?)([A-Za-z_][A-Za-z0-9_]*)\2[ \t]*\n(.*\n)?\t*\3", re.DOTALL
)
COPY_FLAG = re.compile(r"--([a-z-]+)(?:=(\S*))?\s+")


@dataclass(frozen=True)
class RunStep:
    """A RUN command, with the env (ENV and ARG), workdir and user in force at its line."""

    command: str
    env: dict[str, str]
    workdir: str
    user: str | None


@dataclass(frozen=True)
class CopyStep:
    """A COPY or ADD: (host source inside the context, absolute target in the sandbox) pairs.

    For a file the target is the file's full path; for a directory, the directory its contents
    go into. chmod is `--chmod`'s mode as written, to apply after the copy.
    """

    items: list[tuple[Path, str]]
    owner: str | None
    workdir: str
    chmod: str | None = None


@dataclass(frozen=True)
class WorkdirStep:
    """A WORKDIR: the absolute directory to create."""

    path: str


BuildStep = RunStep | CopyStep | WorkdirStep


@dataclass(frozen=True)
class BuildPlan:
    """What a Dockerfile asks for, as steps to run in the sandbox and the state they leave."""

    base_image: str | None
    steps: list[BuildStep]
    env: dict[str, str]
    workdir: str | None
    user: str | None
    notes: list[str]
    # What the build could not do that the image would have (a COPY --from of an image assay
    # cannot map, say): a task run over it is INDETERMINATE, never scored.
    incomplete: list[str] = field(default_factory=list)


def plan_build(dockerfile: Path, context: Path) -> BuildPlan:
    """The build steps of the Dockerfile's last stage (and the stages it is built FROM).

    COPY and ADD sources are checked against the context here; a missing source, one outside
    the context or a line Docker could not read is a SpecError naming the file and the line.
    """
    text = read_text(dockerfile)
    instructions = parse_dockerfile(text)
    planner = _Planner(dockerfile, CopySources(context, shown(dockerfile)), escape_character(text))
    stages = _stages(instructions, planner)
    for instruction in _chosen(stages, planner):
        planner.apply(instruction)
    return planner.plan()


@dataclass
class _Stage:
    name: str
    image: str
    line: int
    instructions: list[Instruction] = field(default_factory=list)


def _stages(instructions: list[Instruction], planner: _Planner) -> list[_Stage]:
    stages: list[_Stage] = []
    for instruction in instructions:
        if instruction.keyword == "FROM":
            image, name = planner.from_line(instruction)
            stages.append(_Stage(name or str(len(stages)), image, instruction.line))
        elif stages:
            stages[-1].instructions.append(instruction)
        elif instruction.keyword == "ARG":
            planner.global_arg(instruction)
        else:
            planner.refuse(instruction, "only ARG may come before the first FROM")
    if not stages:
        raise SpecError(shown(planner.dockerfile), None, "no FROM instruction")
    return stages


def _chosen(stages: list[_Stage], planner: _Planner) -> list[Instruction]:
    """The last stage's instructions after those of the stages it is built FROM."""
    by_name = {stage.name.lower(): stage for stage in stages}
    chain = [stages[-1]]
    while chain[-1].image.lower() in by_name and by_name[chain[-1].image.lower()] not in chain:
        chain.append(by_name[chain[-1].image.lower()])
    planner.base(chain[-1].image)
    planner.notes += [f"multi_stage_ignored:{stage.name}" for stage in stages if stage not in chain]
    return [instruction for stage in reversed(chain) for instruction in stage.instructions]


class _Planner:
    """The state a Dockerfile builds up line by line, and the steps it asks for."""

    def __init__(self, dockerfile: Path, sources: CopySources, escape: str):
        self.dockerfile = dockerfile
        self.sources = sources
        self.escape = escape
        self.global_args: dict[str, str] = {}
        self.args: dict[str, str] = {}
        self.env: dict[str, str] = {}
        self.workdir = "/"
        self.last_workdir: str | None = None
        self.user: str | None = None
        self.base_image: str | None = None
        self.steps: list[BuildStep] = []
        self.notes: list[str] = []

    def plan(self) -> BuildPlan:
        return BuildPlan(
            self.base_image, self.steps, dict(self.env), self.last_workdir, self.user, self.notes
        )

    def refuse(self, instruction: Instruction, message: str) -> NoReturn:
        raise SpecError(shown(self.dockerfile), f"line {instruction.line}", message)

    def variables(self) -> dict[str, str]:
        return {**self.args, **self.env}

    def words(self, instruction: Instruction, text: str, one: bool = False) -> list[str]:
        try:
            if one:
                return [word(text, self.variables(), self.escape)]
            return words(text, self.variables(), self.escape)
        except WordError as error:
            self.refuse(instruction, f"{instruction.keyword}: {error}")

    def from_line(self, instruction: Instruction) -> tuple[str, str | None]:
        found = [w for w in self._global_words(instruction) if not w.startswith("--")]
        if not found or len(found) not in (1, 3) or (len(found) == 3 and found[1].lower() != "as"):
            self.refuse(instruction, "FROM takes an image and an optional 'AS name'")
        return found[0], found[2] if len(found) == 3 else None

    def global_arg(self, instruction: Instruction) -> None:
        for name, value in self.arg_pairs(instruction, self._global_words(instruction)):
            if value is not None:
                self.global_args[name] = value

    def base(self, image: str) -> None:
        self.base_image = image
        self.notes.append(f"base_image_substituted:{image}")

    def apply(self, instruction: Instruction) -> None:
        handler = HANDLERS.get(instruction.keyword)
        if handler is not None:
            handler(self, instruction)
        elif instruction.keyword in ONLY_NOTED:
            self.notes.append(f"unsupported_instruction:{instruction.keyword}@{instruction.line}")
        else:
            self.refuse(instruction, f"unknown instruction {instruction.keyword}")

    def _global_words(self, instruction: Instruction) -> list[str]:
        try:
            return words(instruction.arguments, self.global_args, self.escape)
        except WordError as error:
            self.refuse(instruction, f"{instruction.keyword}: {error}")

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


def _arg(planner: _Planner, instruction: Instruction) -> None:
    found = planner.words(instruction, instruction.arguments)
    for name, value in planner.arg_pairs(instruction, found):
        default = value if value is not None else planner.global_args.get(name)
        if default is not None:
            planner.args[name] = default


def _env(planner: _Planner, instruction: Instruction) -> None:
    found = planner.words(instruction, instruction.arguments)
    if not found:
        planner.refuse(instruction, "ENV needs a name and a value")
    if "=" not in found[0]:
        # The legacy form `ENV name the whole rest of the line`.
        name, *rest = re.split(r"\s+", instruction.arguments.strip(), maxsplit=1)
        if not rest:
            planner.refuse(instruction, f"ENV {name} has no value (write ENV {name}=value)")
        planner.env[name] = planner.words(instruction, rest[0], one=True)[0]
        return
    pairs = {}
    for item in found:
        name, equals, value = item.partition("=")
        if not equals or not name:
            planner.refuse(instruction, f"ENV {item!r} is not name=value")
        pairs[name] = value
    planner.env.update(pairs)  # all at once: `ENV a=1 b=$a` sees the a from before the line


def _workdir(planner: _Planner, instruction: Instruction) -> None:
    path = planner.words(instruction, instruction.arguments, one=True)[0]
    if not path:
        planner.refuse(instruction, "WORKDIR needs a path")
    joined = posixpath.normpath(posixpath.join(planner.workdir, path))
    planner.workdir = "/" + joined.lstrip("/")  # normpath keeps a leading `//`
    planner.last_workdir = planner.workdir
    planner.sources.made_directory(planner.workdir)
    planner.steps.append(WorkdirStep(planner.workdir))


def _user(planner: _Planner, instruction: Instruction) -> None:
    user = planner.words(instruction, instruction.arguments, one=True)[0]
    if not user:
        planner.refuse(instruction, "USER needs a user")
    planner.user = user


def _run(planner: _Planner, instruction: Instruction) -> None:
    arguments = instruction.arguments
    while (flag := re.match(r"--([a-z-]+)(=\S*)?\s+", arguments)) is not None:
        planner.notes.append(f"run_flag_ignored:--{flag[1]}@{instruction.line}")
        arguments = arguments[flag.end() :]
    if not arguments.strip():
        planner.refuse(instruction, "RUN needs a command")
    command = _exec_form(arguments)
    command = _heredoc_script(arguments) if command is None else command
    env = {**planner.args, **planner.env}  # ARGs are in a RUN's environment, as in Docker
    planner.steps.append(RunStep(command, env, planner.workdir, planner.user))


def _exec_form(arguments: str) -> str | None:
    """`["a", "b c"]` → `a 'b c'`; None when the arguments are not a JSON array of strings."""
    if not arguments.startswith("["):
        return None
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return None
    if not isinstance(parsed, list) or not all(isinstance(item, str) for item in parsed):
        return None
    return shlex.join(parsed)


def _heredoc_script(arguments: str) -> str:
    """A RUN that is only a heredoc runs the heredoc's body, as Docker does."""
    alone = HEREDOC_ALONE.fullmatch(arguments)
    if alone is None:
        return arguments
    dash, end, body = alone[1], alone[3], alone[4] or ""
    if dash:
        body = "".join(line.lstrip("\t") for line in body.splitlines(keepends=True))
    if not body.startswith("#!"):
        return body
    return (
        f"script=$(mktemp) && cat > \"$script\" <<'{end}'\n{body}{end}\n"
        'chmod +x "$script" && "$script"; status=$?; rm -f "$script"; exit $status'
    )


def _copy(planner: _Planner, instruction: Instruction) -> None:
    keyword, line, arguments = instruction.keyword, instruction.line, instruction.arguments
    flags: dict[str, str] = {}
    while (flag := COPY_FLAG.match(arguments)) is not None:
        flags[flag[1]] = planner.words(instruction, flag[2] or "", one=True)[0]
        arguments = arguments[flag.end() :]
    if "from" in flags:
        planner.notes.append(f"copy_from_unsupported:{flags['from']}")
        return
    if HEREDOC.search(arguments):
        planner.notes.append(f"{keyword.lower()}_heredoc_unsupported@{line}")
        return
    for name in flags.keys() - {"chown", "chmod"}:
        planner.notes.append(f"{keyword.lower()}_flag_ignored:--{name}@{line}")
    if "chmod" in flags:
        planner.notes.append(f"copy_chmod:{flags['chmod']}@{line}")
    found = _copy_words(planner, instruction, arguments)
    if len(found) < 2:
        planner.refuse(instruction, f"{keyword} needs a source and a destination")
    items, notes = planner.sources.items(keyword, found[:-1], found[-1], planner.workdir, line)
    planner.notes += notes
    if items:
        step = CopyStep(items, flags.get("chown"), planner.workdir, flags.get("chmod"))
        planner.steps.append(step)


def _copy_words(planner: _Planner, instruction: Instruction, arguments: str) -> list[str]:
    """The sources and destination, from the JSON form `["a", "/b/"]` or the plain one."""
    if arguments.startswith("["):
        try:
            parsed = json.loads(arguments)
        except ValueError:
            parsed = None
        if isinstance(parsed, list) and all(isinstance(item, str) for item in parsed):
            variables = planner.variables()
            return [substituted(item, variables, planner.escape) for item in parsed]
    return planner.words(instruction, arguments)


HANDLERS = {
    "ARG": _arg,
    "ENV": _env,
    "WORKDIR": _workdir,
    "USER": _user,
    "RUN": _run,
    "COPY": _copy,
    "ADD": _copy,
}


def build_key(dockerfile: Path, context: Path) -> str:
    """A sha256 of the Dockerfile and every file of the context (path, mode, bytes), for caching."""
    digest = hashlib.sha256()
    _frame(digest, dockerfile.read_bytes())
    for path in sorted(_context_entries(context)):
        info = path.lstat()
        _frame(digest, path.relative_to(context).as_posix().encode())
        _frame(digest, oct(info.st_mode).encode())  # the file type and permission bits
        if stat.S_ISLNK(info.st_mode):
            _frame(digest, os.readlink(path).encode())
        elif stat.S_ISREG(info.st_mode):
            _frame(digest, path.read_bytes())
    return digest.hexdigest()


def _context_entries(context: Path) -> list[Path]:
    entries = []
    for directory, subdirectories, files in os.walk(context):
        entries += [Path(directory, name) for name in subdirectories + files]
    return entries


def _frame(digest: hashlib._Hash, data: bytes) -> None:
    # Length-prefixed, so that no two different contexts can hash the same bytes.
    digest.update(len(data).to_bytes(8, "big"))
    digest.update(data)
