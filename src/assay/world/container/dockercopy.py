"""COPY and ADD planned as steps: from the context, from an earlier stage, from an image assay can
stand in for, from a heredoc, from a URL, or a local archive unpacked."""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from assay.world.container import copyimages
from assay.world.container.dockercontext import absolute, is_archive, names_a_directory
from assay.world.container.dockerparse import HEREDOC, Instruction
from assay.world.container.dockersteps import (
    CopyStep,
    FetchStep,
    StageCopyStep,
    UnpackStep,
    WriteStep,
)
from assay.world.container.dockerwords import WordError, heredoc_text, substituted

if TYPE_CHECKING:
    from assay.world.container.dockerstage import StagePlanner

COPY_FLAG = re.compile(r"--([a-z-]+)(?:=(\S*))?\s+")
URL = re.compile(r"^https?://", re.IGNORECASE)
GIT = re.compile(r"^(git@|git://|ssh://)|\.git(#.*)?$", re.IGNORECASE)
HEREDOC_SOURCE = re.compile(r"<<-?([A-Za-z_][A-Za-z0-9_]*)")
KNOWN_FLAGS = {"from", "chown", "chmod", "checksum"}


@dataclass(frozen=True)
class _Copy:
    """One COPY or ADD line, read: its flags, its sources and where they go."""

    keyword: str
    line: int
    sources: list[str]
    target: str
    into: bool  # the destination is a directory: each source goes inside it by name
    flags: dict[str, str]

    @property
    def owner(self) -> str | None:
        return self.flags.get("chown")

    @property
    def chmod(self) -> str | None:
        return self.flags.get("chmod")


def plan_copy(planner: StagePlanner, instruction: Instruction) -> None:
    """The steps of one COPY or ADD line."""
    first, _, bodies = instruction.arguments.partition("\n")
    flags: dict[str, str] = {}
    while (flag := COPY_FLAG.match(first)) is not None:
        flags[flag[1]] = planner.words(instruction, flag[2] or "", one=True)[0]
        first = first[flag.end() :]
    for name in flags.keys() - KNOWN_FLAGS:
        note = f"{instruction.keyword.lower()}_flag_ignored:--{name}@{instruction.line}"
        planner.build.notes.append(note)
    if "chmod" in flags and not re.fullmatch(r"[0-7]{3,4}", flags["chmod"]):
        planner.refuse(instruction, f"--chmod={flags['chmod']} is not an octal mode like 755")
    found = _copy_words(planner, instruction, first)
    if len(found) < 2:
        planner.refuse(instruction, f"{instruction.keyword} needs a source and a destination")
    sources, destination = found[:-1], found[-1]
    target = absolute(destination, planner.workdir)
    into = names_a_directory(destination) or target in planner.known_dirs
    if len(sources) > 1 and not into:
        message = f"{instruction.keyword} of several sources needs a destination ending in '/'"
        planner.refuse(instruction, f"{message}, not {destination!r}")
    copy = _Copy(instruction.keyword, instruction.line, sources, target, into, flags)
    if "from" in flags:
        _from(planner, copy, flags["from"])
    else:
        _here(planner, instruction, copy, first, bodies)
    if copy.into:
        planner.made_directory(target)


def _here(
    planner: StagePlanner, instruction: Instruction, copy: _Copy, first: str, bodies: str
) -> None:
    """Sources from the Dockerfile itself (heredocs), from URLs and from the build context."""
    heredocs = dict(_heredocs(planner, instruction, first, bodies))
    local = []
    for source in copy.sources:
        heredoc = HEREDOC_SOURCE.fullmatch(source)
        if heredoc is not None and heredoc[1] in heredocs:
            path = posixpath.join(copy.target, heredoc[1]) if copy.into else copy.target
            planner.steps.append(WriteStep(path, heredocs[heredoc[1]], copy.owner, copy.chmod))
        elif copy.keyword == "ADD" and (GIT.search(source) or URL.match(source)):
            _fetch(planner, instruction, copy, source)
        else:
            local.append(source)
    if not local:
        return
    context = planner.build.sources
    items = context.items(copy.keyword, local, copy.target, copy.into, copy.line)
    if copy.keyword == "ADD":
        archives = [path for path, _ in items if is_archive(path)]
        for archive in archives:
            planner.steps.append(UnpackStep(archive, copy.target, copy.owner))
        items = [(path, target) for path, target in items if path not in archives]
    if items:
        skip = frozenset().union(*(context.skipped_under(path) for path, _ in items))
        planner.steps.append(CopyStep(items, copy.owner, planner.workdir, copy.chmod, skip))
        if any(path.is_dir() for path, _ in items):
            planner.made_directory(copy.target)


def _from(planner: StagePlanner, copy: _Copy, name: str) -> None:
    """`COPY --from`: an earlier stage by name or number, else an image assay can stand in for;
    any other image cannot be copied from here, and the plan says so."""
    paths = ["/" + posixpath.normpath(source).lstrip("/") for source in copy.sources]
    key = planner.build.copied_stage(name, before=planner.index)
    if key is not None:
        step = StageCopyStep(key, paths, copy.target, copy.into, copy.owner, copy.chmod)
        planner.steps.append(step)
        return
    mapped = copyimages.files(name, paths)
    if mapped is None:
        planner.build.incomplete.append(f"unsupported_instruction:COPY --from={name}")
        return
    items = [(host, _into(copy, path)) for path, host in mapped]
    planner.steps.append(CopyStep(items, copy.owner, planner.workdir, copy.chmod))
    planner.build.inputs += [copyimages.identity(host) for _, host in mapped]
    planner.build.notes.append(f"copy_from_image_mapped:{name}")


def _into(copy: _Copy, path: str) -> str:
    return posixpath.join(copy.target, posixpath.basename(path)) if copy.into else copy.target


def _fetch(planner: StagePlanner, instruction: Instruction, copy: _Copy, url: str) -> None:
    """ADD of a URL: downloaded at build time; a Git repository cannot be cloned here."""
    if GIT.search(url):
        planner.build.incomplete.append(f"unsupported_instruction:ADD {url}")
        return
    path = copy.target
    if copy.into:
        name = posixpath.basename(urlsplit(url).path)
        if not name:
            planner.refuse(instruction, f"ADD {url}: the URL names no file to save it as")
        path = posixpath.join(copy.target, name)
    checksum = copy.flags.get("checksum")
    if checksum is not None and not re.fullmatch(r"sha256:[0-9a-f]{64}", checksum):
        planner.refuse(instruction, f"--checksum={checksum} is not sha256:<64 hex digits>")
    planner.steps.append(FetchStep(url, path, copy.owner, copy.chmod, checksum))


def _heredocs(
    planner: StagePlanner, instruction: Instruction, first: str, bodies: str
) -> list[tuple[str, str]]:
    """Each heredoc of the line as (its word, the file's text): tabs stripped for `<<-`, and
    variables expanded unless the word is quoted, as BuildKit does for COPY."""
    lines = bodies.split("\n") if bodies else []
    found = []
    at = 0
    for dash, quote, end in HEREDOC.findall(first):
        body: list[str] = []
        while at < len(lines):
            line = lines[at].lstrip("\t") if dash else lines[at]
            at += 1
            if line == end:
                break
            body.append(line + "\n")
        text = "".join(body)
        if not quote:
            try:
                text = heredoc_text(text, planner.variables(), planner.build.escape)
            except WordError as error:
                planner.refuse(instruction, f"{instruction.keyword} <<{end}: {error}")
        found.append((end, text))
    return found


def _copy_words(planner: StagePlanner, instruction: Instruction, arguments: str) -> list[str]:
    """The sources and destination, from the JSON form `["a", "/b/"]` or the plain one."""
    if arguments.startswith("["):
        try:
            parsed = json.loads(arguments)
        except ValueError:
            parsed = None
        if isinstance(parsed, list) and all(isinstance(item, str) for item in parsed):
            variables = planner.variables()
            return [substituted(item, variables, planner.build.escape) for item in parsed]
    return planner.words(instruction, arguments)
