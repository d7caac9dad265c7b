"""One build stage planned line by line: the state its instructions build up and the steps they ask for."""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn

from assay.errors import SpecError
from assay.world.container.dockercopy import plan_copy
from assay.world.container.dockerparse import Instruction
from assay.world.container.dockersteps import (
    DEFAULT_SHELL,
    BuildPlan,
    BuildStep,
    RunStep,
    WorkdirStep,
)
from assay.world.container.dockerwords import WordError, word, words

if TYPE_CHECKING:
    from assay.world.container.dockerfile import Build

ONLY_NOTED = [
    "EXPOSE",
    "LABEL",
    "HEALTHCHECK",
    "VOLUME",
    "STOPSIGNAL",
    "ONBUILD",
    "MAINTAINER",
]
HEREDOC_ALONE = re.compile(
    r"<<(-?)([\"']?)([A-Za-z_][A-Za-z0-9_]*)\2[ \t]*\n(.*\n)?\t*\3", re.DOTALL
)


class StagePlanner:
    """The state a stage builds up line by line (ENV, WORKDIR, USER, SHELL, ENTRYPOINT), and the
    steps it asks for; a stage FROM an earlier one starts from that one's state and steps."""

    def __init__(self, build: Build, index: int, image: str, parent: StagePlanner | None):
        self.build = build
        self.index = index
        self.args: dict[str, str] = {}  # an ARG is the stage's own: a child stage has none
        if parent is None:
            self.base_image = image
            self.env = dict(build.base_env(image))
            self.workdir, self.last_workdir, self.user = "/", None, None
            self.shell, self.entrypoint = DEFAULT_SHELL, None
            self.steps: list[BuildStep] = []
            self.known_dirs = {"/"}  # directories the build made, so `COPY a /made` goes inside
            self.copied_from: list[str] = []
        else:
            self.base_image = parent.base_image
            self.env = dict(parent.env)
            self.workdir, self.last_workdir = parent.workdir, parent.last_workdir
            self.user, self.shell, self.entrypoint = parent.user, parent.shell, parent.entrypoint
            self.steps = list(parent.steps)
            self.known_dirs = set(parent.known_dirs)
            self.copied_from = list(parent.copied_from)

    def plan(self) -> BuildPlan:
        """The stage as a plan of its own (the notes and stages are the whole build's)."""
        return BuildPlan(
            self.base_image,
            list(self.steps),
            dict(self.env),
            self.last_workdir,
            self.user,
            notes=[],
            entrypoint=self.entrypoint,
        )

    def refuse(self, instruction: Instruction, message: str) -> NoReturn:
        raise SpecError(self.build.where, f"line {instruction.line}", message)

    def variables(self) -> dict[str, str]:
        return {**self.args, **self.env}

    def words(self, instruction: Instruction, text: str, one: bool = False) -> list[str]:
        try:
            if one:
                return [word(text, self.variables(), self.build.escape)]
            return words(text, self.variables(), self.build.escape)
        except WordError as error:
            self.refuse(instruction, f"{instruction.keyword}: {error}")

    def apply(self, instruction: Instruction) -> None:
        handler = HANDLERS.get(instruction.keyword)
        if handler is not None:
            handler(self, instruction)
        elif instruction.keyword in ONLY_NOTED:
            self.build.notes.append(
                f"unsupported_instruction:{instruction.keyword}@{instruction.line}"
            )
        else:
            self.refuse(instruction, f"unknown instruction {instruction.keyword}")

    def made_directory(self, path: str) -> None:
        """The build made this directory: a later COPY to it puts files inside it."""
        self.known_dirs.add(path)


def _arg(planner: StagePlanner, instruction: Instruction) -> None:
    found = planner.words(instruction, instruction.arguments)
    for name, value in planner.build.arg_pairs(instruction, found):
        default = value if value is not None else planner.build.global_args.get(name)
        if default is not None:
            planner.args[name] = default


def _env(planner: StagePlanner, instruction: Instruction) -> None:
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


def _workdir(planner: StagePlanner, instruction: Instruction) -> None:
    path = planner.words(instruction, instruction.arguments, one=True)[0]
    if not path:
        planner.refuse(instruction, "WORKDIR needs a path")
    joined = posixpath.normpath(posixpath.join(planner.workdir, path))
    planner.workdir = "/" + joined.lstrip("/")  # normpath keeps a leading `//`
    planner.last_workdir = planner.workdir
    planner.made_directory(planner.workdir)
    planner.steps.append(WorkdirStep(planner.workdir))


def _user(planner: StagePlanner, instruction: Instruction) -> None:
    user = planner.words(instruction, instruction.arguments, one=True)[0]
    if not user:
        planner.refuse(instruction, "USER needs a user")
    planner.user = user


def _run(planner: StagePlanner, instruction: Instruction) -> None:
    arguments = instruction.arguments
    while (flag := re.match(r"--([a-z-]+)(=\S*)?\s+", arguments)) is not None:
        planner.build.notes.append(f"run_flag_ignored:--{flag[1]}@{instruction.line}")
        arguments = arguments[flag.end() :]
    if not arguments.strip():
        planner.refuse(instruction, "RUN needs a command")
    env = {**planner.args, **planner.env}  # ARGs are in a RUN's environment, as in Docker
    argv = exec_form(arguments)
    if argv is not None:
        step = RunStep(shlex.join(argv), env, planner.workdir, planner.user, shell=None)
    else:
        command, own_shell = _heredoc_script(arguments)
        shell = None if own_shell else planner.shell
        step = RunStep(command, env, planner.workdir, planner.user, shell=shell)
    planner.steps.append(step)


def _shell(planner: StagePlanner, instruction: Instruction) -> None:
    argv = exec_form(instruction.arguments)
    if not argv:
        planner.refuse(instruction, 'SHELL takes a JSON array of strings, as ["/bin/bash", "-c"]')
    planner.shell = tuple(argv)


def _entrypoint(planner: StagePlanner, instruction: Instruction) -> None:
    argv = exec_form(instruction.arguments)
    if argv is None:
        text = instruction.arguments.strip()
        planner.entrypoint = (*planner.shell, text) if text else None
    else:
        planner.entrypoint = tuple(argv) or None  # `ENTRYPOINT []` clears the base's


def _cmd(planner: StagePlanner, instruction: Instruction) -> None:
    """CMD is the container's default command, which the format's runner always replaces."""


def exec_form(arguments: str) -> list[str] | None:
    """`["a", "b c"]` as its words; None when the arguments are not a JSON array of strings."""
    if not arguments.startswith("["):
        return None
    try:
        parsed = json.loads(arguments)
    except ValueError:
        return None
    if not isinstance(parsed, list) or not all(isinstance(item, str) for item in parsed):
        return None
    return parsed


def _heredoc_script(arguments: str) -> tuple[str, bool]:
    """A RUN that is only a heredoc runs the heredoc's body with the shell, as Docker does, or as a
    script of its own when it starts with `#!`; True when the command needs no shell around it."""
    alone = HEREDOC_ALONE.fullmatch(arguments)
    if alone is None:
        return arguments, False
    dash, end, body = alone[1], alone[3], alone[4] or ""
    if dash:
        body = "".join(line.lstrip("\t") for line in body.splitlines(keepends=True))
    if not body.startswith("#!"):
        return body, False
    script = (
        f"script=$(mktemp) && cat > \"$script\" <<'{end}'\n{body}{end}\n"
        'chmod +x "$script" && "$script"; status=$?; rm -f "$script"; exit $status'
    )
    return script, True


HANDLERS: dict[str, Callable[[StagePlanner, Instruction], None]] = {
    "ARG": _arg,
    "ENV": _env,
    "WORKDIR": _workdir,
    "USER": _user,
    "RUN": _run,
    "SHELL": _shell,
    "ENTRYPOINT": _entrypoint,
    "CMD": _cmd,
    "COPY": plan_copy,
    "ADD": plan_copy,
}
