"""A container-format task directory as a ContainerTask, and `${VAR}` templates
(docs/contracts/container.md §1, §2)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from assay.errors import SpecError
from assay.formats.compose import ComposeMain, read_compose
from assay.formats.container_config import (
    AgentConfig,
    Artifact,
    Author,
    CollectHook,
    EnvironmentConfig,
    Healthcheck,
    NetworkMode,
    Phase,
    SolutionConfig,
    TaskConfig,
    TaskInfo,
    VerifierConfig,
    VerifierMode,
)
from assay.formats.container_steps import StepFiles
from assay.formats.files import parse_model, read_text, read_toml, shown
from assay.formats.layout import is_task_dir

__all__ = [
    "AgentConfig",
    "Artifact",
    "Author",
    "CollectHook",
    "ContainerTask",
    "EnvironmentConfig",
    "Healthcheck",
    "NetworkMode",
    "Phase",
    "SolutionConfig",
    "TaskConfig",
    "TaskInfo",
    "VerifierConfig",
    "VerifierMode",
    "is_task_dir",
    "read_sandbox_task",
    "read_task_config",
    "resolve_templates",
    "task_dirs",
]

TASK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
TEMPLATE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
SCRIPT_EXTENSIONS = {"linux": (".sh",), "windows": (".bat",)}


@dataclass(frozen=True)
class ContainerTask:
    """A container-format task directory: its id, instruction, config and the files it has."""

    id: str
    root: Path
    instruction: str
    config: TaskConfig
    solve_script: Path | None = None
    test_script: Path | None = None
    pre_artifacts: Path | None = None
    dockerfile: Path | None = None
    compose: Path | None = None
    compose_main: ComposeMain | None = None  # what a main-only compose file adds, read once
    tests_dockerfile: Path | None = None
    solution_dir: Path | None = None
    tests_dir: Path | None = None
    environment_dir: Path | None = None
    steps: tuple[StepFiles, ...] = ()  # a multi-step task's steps, in order

    @property
    def title(self) -> str:
        """[task].name when the task has one, else its id."""
        return self.config.task.name if self.config.task is not None else self.id

    def unsupported(self) -> list[str]:
        """The config's unsupported reasons, plus a docker-compose file's."""
        return self.config.unsupported() + self._compose_unsupported()

    def _compose_unsupported(self) -> list[str]:
        if self.compose is None or self.compose_main is None:
            return []
        if self.compose_main.unsupported is not None:
            return [self.compose_main.unsupported]
        if self.dockerfile is None:
            return [
                "unsupported_environment:compose(services.main is built from a Dockerfile the environment lacks)"
            ]
        return []


def read_task_config(path: Path) -> TaskConfig:
    """A task.toml as a TaskConfig; a SpecError naming the file and the field when it is wrong."""
    return parse_model(TaskConfig, read_toml(path), shown(path))


def read_sandbox_task(root: Path) -> ContainerTask:
    """A task directory, checked: a valid id, task.toml, instruction.md and a non-empty test.sh."""
    if not is_task_dir(root):
        raise SpecError(shown(root), None, "not a task directory: it holds no task.toml")
    if not TASK_ID.match(root.name):
        message = f"the task id {root.name!r} must be letters, digits, '_', '.' or '-'"
        raise SpecError(shown(root), None, f"{message}, starting with a letter or digit")
    config = read_task_config(root / "task.toml")
    multi_step = bool(config.steps)
    instruction_file = root / "instruction.md"
    instruction = (
        "" if multi_step and not instruction_file.exists() else read_text(instruction_file)
    )
    extensions = SCRIPT_EXTENSIONS[config.environment.os]
    test_script = _script(root / "tests", "test", extensions)
    if config.environment.os == "linux" and not multi_step:
        _require_test_script(root / "tests" / "test.sh")
    steps = tuple(_step_files(root, step.name, extensions) for step in config.steps or [])
    environment_dir = _directory(root / "environment")
    compose = _file(root / "environment" / "docker-compose.yaml") or _file(
        root / "environment" / "docker-compose.yml"
    )
    return ContainerTask(
        id=root.name,
        root=root,
        instruction=instruction,
        config=config,
        solve_script=_script(root / "solution", "solve", extensions),
        test_script=test_script,
        pre_artifacts=_file(root / "pre_artifacts.sh"),
        dockerfile=_file(root / "environment" / "Dockerfile"),
        compose=compose,
        compose_main=read_compose(compose) if compose is not None else None,
        tests_dockerfile=_file(root / "tests" / "Dockerfile"),
        solution_dir=_directory(root / "solution"),
        tests_dir=_directory(root / "tests"),
        environment_dir=environment_dir,
        steps=steps,
    )


def _step_files(root: Path, name: str, extensions: tuple[str, ...]) -> StepFiles:
    """steps/<name>/: its instruction.md, and a test script of its own or the task's."""
    folder = root / "steps" / name
    instruction = folder / "instruction.md"
    if not instruction.is_file():
        raise SpecError(shown(instruction), None, f"file not found: step {name!r} needs one")
    own_tests = _directory(folder / "tests")
    test_script = _script(folder / "tests", "test", extensions) or _script(
        root / "tests", "test", extensions
    )
    if test_script is None and extensions == (".sh",):
        where = shown(folder / "tests" / "test.sh")
        raise SpecError(where, None, f"file not found: step {name!r} needs it or tests/test.sh")
    if test_script is not None and extensions == (".sh",):
        _require_test_script(test_script)
    return StepFiles(
        name=name,
        instruction=read_text(instruction),
        test_script=test_script,
        tests_dirs=tuple(d for d in (_directory(root / "tests"), own_tests) if d is not None),
        workdir=_directory(folder / "workdir"),
        solution_dir=_directory(folder / "solution"),
    )


def _require_test_script(path: Path) -> None:
    if path.is_dir():
        raise SpecError(shown(path), None, "is a directory, not the verifier's script")
    if not path.is_file():
        raise SpecError(shown(path), None, "file not found: every task needs tests/test.sh")
    if not path.read_bytes().strip():
        raise SpecError(shown(path), None, "empty: the verifier's script must write a reward")


def _script(directory: Path, stem: str, extensions: tuple[str, ...]) -> Path | None:
    return next((path for ext in extensions if (path := _file(directory / f"{stem}{ext}"))), None)


def _file(path: Path) -> Path | None:
    return path if path.is_file() else None


def _directory(path: Path) -> Path | None:
    return path if path.is_dir() else None


def task_dirs(path: Path) -> list[Path]:
    """[path] when it is a task directory, else its task directories one level down, by name."""
    if is_task_dir(path):
        return [path]
    if not path.is_dir():
        raise SpecError(shown(path), None, "not found" if not path.exists() else "not a directory")
    found = sorted(
        (
            child
            for child in path.iterdir()
            if not child.name.startswith(".") and is_task_dir(child)
        ),
        key=lambda child: child.name,
    )
    if not found:
        raise SpecError(
            shown(path), None, "no task here: neither it nor a directory in it holds task.toml"
        )
    return found


def resolve_templates(
    values: Mapping[str, str], environ: Mapping[str, str]
) -> tuple[dict[str, str], list[str]]:
    """Resolve every `${VAR}` and `${VAR:-default}` in the values from environ.

    As in the shell, the default stands in when VAR is unset or empty. A VAR unset with no default
    becomes "" and is named in the second item (each once, in order of appearance).
    """
    missing: list[str] = []

    def substitute(match: re.Match[str]) -> str:
        name, default = match[1], match[2]
        value = environ.get(name)
        if default is not None:
            return value or default
        if value is None and name not in missing:
            missing.append(name)
        return value or ""

    resolved = {key: TEMPLATE.sub(substitute, value) for key, value in values.items()}
    return resolved, missing
