"""A task's docker-compose file, read for the one case assay runs: the main service alone.

The format's own runner lays a task's compose file over its own, whose one service `main` is built
from the environment directory and kept alive with `sleep infinity`. A file that only restates
that service (its build, image, command, resource limits, environment, working directory, tty)
describes the same single container a Dockerfile does, and runs as one. Anything more (a second
service, volumes, ports, networks, a prebuilt image) needs a container engine: the reason says
what.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from assay.errors import SpecError
from assay.formats.files import read_text, shown

MAIN = "main"
# Keys of the main service that change nothing a single sandbox does: the runner's own template
# sets them (build, image, command, deploy) or they only shape the terminal (tty, stdin_open).
RESTATED = {"build", "image", "command", "deploy", "tty", "stdin_open", "init", "pull_policy"}
APPLIED = {"environment", "working_dir"}
TEMPLATE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-[^}]*)?\}|\$([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class ComposeMain:
    """What a main-only compose file adds to the Dockerfile's container, or why it cannot run."""

    env: dict[str, str] = field(default_factory=dict)
    workdir: str | None = None
    unsupported: str | None = None


def read_compose(path: Path) -> ComposeMain:
    """The compose file at path; a SpecError naming it when it is not a compose file at all."""
    try:
        data = yaml.safe_load(read_text(path))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else None
        problem = getattr(error, "problem", None)
        raise SpecError(shown(path), where, f"not valid YAML: {problem or error}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SpecError(shown(path), None, "a compose file is a mapping with `services`")
    return _main_only(data, path)


def _main_only(data: dict[str, Any], path: Path) -> ComposeMain:
    extra = sorted(str(key) for key in data if key not in ("services", "version", "name"))
    if extra:
        return _refused(f"top-level {extra[0]}")
    services = data.get("services") or {}
    if not isinstance(services, dict):
        raise SpecError(shown(path), "services", "must be a mapping of service names")
    if set(services) != {MAIN}:
        names = ", ".join(sorted(str(name) for name in services)) or "none"
        return _refused(f"services {names} (only `main` alone runs without a container engine)")
    service = services[MAIN] or {}
    if not isinstance(service, dict):
        raise SpecError(shown(path), "services.main", "must be a mapping")
    unknown = sorted(str(key) for key in service if key not in RESTATED | APPLIED)
    if unknown:
        return _refused(f"services.main.{unknown[0]}")
    if not _built_here(service.get("build")):
        return _refused("services.main.build (a build other than the environment directory)")
    env = _environment(service.get("environment"), path)
    workdir = service.get("working_dir")
    if workdir is not None and (not isinstance(workdir, str) or TEMPLATE.search(workdir)):
        workdir = None  # a template the runner fills: the image's own WORKDIR stands
    return ComposeMain(env=env, workdir=workdir)


def _built_here(build: object) -> bool:
    """Whether the service is built from the environment directory with its own Dockerfile."""
    if build is None:
        return False
    if isinstance(build, str):
        return build in (".", "./", "${CONTEXT_DIR}")
    if not isinstance(build, dict):
        return False
    context = build.get("context", ".")
    dockerfile = build.get("dockerfile", "Dockerfile")
    others = set(build) - {"context", "dockerfile"}
    return context in (".", "./", "${CONTEXT_DIR}") and dockerfile == "Dockerfile" and not others


def _environment(value: object, path: Path) -> dict[str, str]:
    """The service's environment; an entry the runner fills (`TEST_DIR=${TEST_DIR}`) is left out."""
    if value is None:
        return {}
    if isinstance(value, dict):
        pairs = [(str(key), "" if item is None else str(item)) for key, item in value.items()]
    elif isinstance(value, list):
        pairs = [(str(item).partition("=")[0], str(item).partition("=")[2]) for item in value]
    else:
        raise SpecError(shown(path), "services.main.environment", "must be a list or a mapping")
    env = {}
    for name, text in pairs:
        if TEMPLATE.search(text):
            continue  # filled from the runner's own variables, none of which a task run has
        env[name] = text
    return env


def _refused(what: str) -> ComposeMain:
    return ComposeMain(unsupported=f"unsupported_environment:compose({what})")
