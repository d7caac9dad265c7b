"""The steps a Dockerfile's build is planned as, and the plan: what build.py runs and the image's state."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_SHELL = ("/bin/sh", "-c")  # Docker's on Linux, until a SHELL instruction says otherwise
# What Docker gives a container whose image sets no PATH.
DOCKER_DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass(frozen=True)
class RunStep:
    """A RUN command, with the env (ENV and ARG), workdir and user in force at its line.

    shell: the SHELL in force, which runs a shell-form command; None for a command that is run as
    it stands (the exec form, joined as words, or a heredoc script with its own `#!`).
    """

    command: str
    env: dict[str, str]
    workdir: str
    user: str | None
    shell: tuple[str, ...] | None = DEFAULT_SHELL


@dataclass(frozen=True)
class CopyStep:
    """A COPY or ADD: (host source, absolute target in the sandbox) pairs.

    For a file the target is the file's full path; for a directory, the directory its contents
    go into. chmod is `--chmod`'s octal mode for every file and directory copied; skip holds the
    host paths under the sources that .dockerignore leaves out, each with what is under it.
    """

    items: list[tuple[Path, str]]
    owner: str | None
    workdir: str
    chmod: str | None = None
    skip: frozenset[Path] = frozenset()


@dataclass(frozen=True)
class StageCopyStep:
    """A `COPY --from=<stage>`: paths (or patterns) of that stage's built root, copied by Docker's
    rules once the stage is built; `into` when the destination names a directory."""

    stage: str
    sources: list[str]
    destination: str
    into: bool
    owner: str | None = None
    chmod: str | None = None


@dataclass(frozen=True)
class UnpackStep:
    """An ADD of a local tar archive (plain, gzip, bzip2 or xz): unpacked into `target`."""

    archive: Path
    target: str
    owner: str | None = None


@dataclass(frozen=True)
class FetchStep:
    """An ADD of a URL: downloaded inside the build sandbox, with its network, to `target` (mode
    600 unless chmod says otherwise); checksum is `--checksum`'s `sha256:<hex>`."""

    url: str
    target: str
    owner: str | None = None
    chmod: str | None = None
    checksum: str | None = None


@dataclass(frozen=True)
class WriteStep:
    """A heredoc of COPY or ADD: `text` written as the file `path` (mode 644 unless chmod)."""

    path: str
    text: str
    owner: str | None = None
    chmod: str | None = None


@dataclass(frozen=True)
class WorkdirStep:
    """A WORKDIR: the absolute directory to create."""

    path: str


BuildStep = RunStep | CopyStep | StageCopyStep | UnpackStep | FetchStep | WriteStep | WorkdirStep


@dataclass(frozen=True)
class BuildPlan:
    """What a Dockerfile asks for, as steps to run in the sandbox and the state they leave.

    env is the image's whole environment: the base image's defaults (PATH at least) with ENV over
    them. entrypoint is the argv the image's ENTRYPOINT starts (a shell form already wrapped in its
    SHELL); a container's command is appended to it. stages are the earlier stages this one copies
    from, by key, in the order they must be built (a stage's own copies name earlier keys only).
    inputs name what the build takes from outside the Dockerfile and its context (an image's file
    assay maps to one of its own), so a cached layer changes when they do.
    """

    base_image: str | None
    steps: list[BuildStep]
    env: dict[str, str]
    workdir: str | None
    user: str | None
    notes: list[str]
    # What the build could not do that the image would have (a COPY --from of an image assay
    # cannot map, say): a task run over it is INDETERMINATE, never scored.
    incomplete: list[str] = field(default_factory=list)
    entrypoint: tuple[str, ...] | None = None
    stages: dict[str, BuildPlan] = field(default_factory=dict)
    inputs: list[str] = field(default_factory=list)
