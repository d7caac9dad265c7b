"""task.toml of a container-format task as models: every field, its default, its legacy keys."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from assay.formats.task import Split

NetworkMode = Literal["no-network", "public", "allowlist"]
Phase = Literal["build", "agent", "verifier"]
VerifierMode = Literal["shared", "separate"]

STEP_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
SIZE = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)([GMK])$")
SIZE_TO_MB = {"G": 1024.0, "M": 1.0, "K": 1 / 1024}


def _user_name_or_id(value: Any) -> Any:
    # Checked before the union, so a wrong value names the field, not one member of the union.
    if value is not None and (isinstance(value, bool) or not isinstance(value, str | int)):
        raise ValueError("must be a user name or a numeric user id")
    return value


User = Annotated[str | int | None, BeforeValidator(_user_name_or_id)]


class Loose(BaseModel, defer_build=True):
    """The format ignores keys it does not know, so a newer task still loads."""

    model_config = ConfigDict(extra="ignore", frozen=True)


def _implied_network(data: Any) -> Any:
    # A phase that lists allowed_hosts but no network_mode means an allowlist, as the format does.
    if isinstance(data, dict) and data.get("allowed_hosts") and "network_mode" not in data:
        return {**data, "network_mode": "allowlist"}
    return data


def _size_mb(size: Any) -> int | None:
    """`"2G"` → 2048, `"512M"` → 512, `"1024K"` → 1; None when it is not such a size."""
    if not isinstance(size, str):
        return None
    match = SIZE.match(size.strip().upper())
    return int(float(match[1]) * SIZE_TO_MB[match[2]]) if match else None


class Author(Loose):
    name: str
    email: str | None = None


class TaskInfo(Loose):
    name: str = Field(min_length=1)
    description: str = ""
    authors: list[Author] = []
    keywords: list[str] = []


class Healthcheck(Loose):
    command: str
    interval_sec: float = Field(5.0, gt=0)
    timeout_sec: float = Field(30.0, gt=0)
    start_period_sec: float = Field(0.0, ge=0)
    start_interval_sec: float = Field(5.0, gt=0)
    retries: int = Field(3, ge=0)


class EnvironmentConfig(Loose):
    build_timeout_sec: float = Field(600.0, gt=0)
    docker_image: str | None = None
    os: Literal["linux", "windows"] = "linux"
    cpus: int | None = Field(None, ge=1)
    memory_mb: int | None = Field(None, ge=1)
    storage_mb: int | None = Field(None, ge=1)
    gpus: int | None = Field(None, ge=0)
    gpu_types: list[str] | None = None
    tpu: Any = None
    mcp_servers: list[Any] = []
    env: dict[str, str] = {}
    skills_dir: str | None = None
    healthcheck: Healthcheck | None = None
    workdir: str | None = None
    network_mode: NetworkMode = "public"
    allowed_hosts: list[str] | None = None
    allow_internet: bool | None = None  # legacy: false means no-network
    memory: str | None = None  # legacy: "2G" and the like, read into memory_mb
    storage: str | None = None  # legacy, read into storage_mb

    @model_validator(mode="before")
    @classmethod
    def _legacy_keys(cls, data: Any) -> Any:
        data = _implied_network(data)
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if isinstance(data.get("os"), str):
            data["os"] = data["os"].lower()
        if "network_mode" not in data and data.get("allow_internet") is False:
            data["network_mode"] = "no-network"
        for legacy, field in (("memory", "memory_mb"), ("storage", "storage_mb")):
            size = _size_mb(data.get(legacy))
            if size is not None:
                data[field] = size
        return data

    @field_validator("memory", "storage")
    @classmethod
    def _a_size(cls, value: str | None) -> str | None:
        if value is not None and _size_mb(value) is None:
            raise ValueError(f"{value!r} is not a size like 2G, 512M or 1024K")
        return value

    @field_validator("workdir")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith("/"):
            raise ValueError(f"{value!r} must be an absolute path")
        return value


class PhaseNetwork(Loose):
    """The network of one phase (the agent's, the verifier's), when it has one of its own."""

    network_mode: NetworkMode | None = None
    allowed_hosts: list[str] | None = None

    @model_validator(mode="before")
    @classmethod
    def _allowlist(cls, data: Any) -> Any:
        return _implied_network(data)


class AgentConfig(PhaseNetwork):
    timeout_sec: float | None = Field(None, gt=0)  # None: no limit of the task's own
    user: User = None


class CollectHook(Loose):
    command: str
    service: str = "main"
    timeout_sec: float = Field(60.0, gt=0)
    user: User = None


class VerifierConfig(PhaseNetwork):
    timeout_sec: float = Field(600.0, gt=0)
    env: dict[str, str] = {}
    user: User = None
    # Declared before environment_mode so that the mode's validator can see it.
    environment: EnvironmentConfig | None = None
    environment_mode: VerifierMode | None = None
    collect: list[CollectHook] = []

    @field_validator("environment_mode")
    @classmethod
    def _shared_has_no_environment(
        cls, value: VerifierMode | None, info: ValidationInfo
    ) -> VerifierMode | None:
        if value == "shared" and info.data.get("environment") is not None:
            raise ValueError(
                '"shared" runs in the agent\'s environment; drop [verifier.environment]'
            )
        return value


class SolutionConfig(Loose):
    env: dict[str, str] = {}


class Artifact(Loose):
    source: str = Field(min_length=1)
    destination: str | None = None
    exclude: list[str] = []
    service: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _path_alone(cls, data: Any) -> Any:
        return {"source": data} if isinstance(data, str) else data

    @field_validator("source")
    @classmethod
    def _no_parent_in_source(cls, value: str) -> str:
        if ".." in PurePosixPath(value).parts:
            raise ValueError(f"{value!r} must not contain '..'")
        return value

    @field_validator("destination")
    @classmethod
    def _inside_artifacts(cls, value: str | None) -> str | None:
        if value is None:
            return value
        path = PurePosixPath(value)
        if path.is_absolute():
            raise ValueError(f"{value!r} must be relative to the artifacts directory")
        if ".." in path.parts:
            raise ValueError(f"{value!r} must not contain '..'")
        if path == PurePosixPath("manifest.json"):
            raise ValueError("manifest.json is the artifact manifest's own name")
        return value


class StepConfig(Loose):
    """One `[[steps]]` entry of a multi-step task: its folder under steps/, its own agent and
    verifier settings over the task's, and the reward below which the later steps are not run."""

    name: str
    agent: AgentConfig = AgentConfig()
    verifier: VerifierConfig = VerifierConfig()
    min_reward: float | dict[str, float] | None = None
    healthcheck: Healthcheck | None = None
    artifacts: list[Artifact] = []

    @field_validator("name")
    @classmethod
    def _a_folder_name(cls, value: str) -> str:
        if not STEP_NAME.match(value):
            raise ValueError(
                f"{value!r}: a step's name is its folder under steps/: letters, digits, '_', '.' "
                "or '-', starting with a letter or digit"
            )
        return value


class TaskConfig(Loose):
    """A task.toml: every field assay reads, with the format's defaults."""

    schema_version: str = "1.3"
    source: str | None = None
    artifacts: list[Artifact] = []
    task: TaskInfo | None = None
    metadata: dict[str, Any] = {}
    agent: AgentConfig = AgentConfig()
    verifier: VerifierConfig = VerifierConfig()
    environment: EnvironmentConfig = EnvironmentConfig()
    solution: SolutionConfig = SolutionConfig()
    steps: list[StepConfig] | None = None  # a multi-step task's steps, run in order
    multi_step_reward_strategy: Literal["mean", "final"] | None = None  # None: mean

    @field_validator("steps")
    @classmethod
    def _names_once(cls, steps: list[StepConfig] | None) -> list[StepConfig] | None:
        names = [step.name for step in steps or []]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"step {twice[0]!r} is named twice")
        return steps

    @model_validator(mode="before")
    @classmethod
    def _version_alias(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "version" not in data:
            return data
        data = dict(data)
        version = data.pop("version")
        if isinstance(version, int | float) and not isinstance(version, bool):
            version = str(version)  # `version = 1.0` written as a number
        data.setdefault("schema_version", version)
        return data

    def verifier_mode(self) -> VerifierMode:
        """An explicit environment_mode; else separate when [verifier.environment] is given."""
        if self.verifier.environment_mode is not None:
            return self.verifier.environment_mode
        return "separate" if self.verifier.environment is not None else "shared"

    def verifier_environment(self) -> EnvironmentConfig:
        """The environment the verifier runs in: its own in separate mode, else the agent's."""
        if self.verifier_mode() == "separate" and self.verifier.environment is not None:
            return self.verifier.environment
        return self.environment

    def network(self, phase: Phase) -> NetworkMode:
        """The phase's network: its own override, else its environment's; a build is public."""
        if phase == "build":
            return "public"
        if phase == "agent":
            return self.agent.network_mode or self.environment.network_mode
        return self.verifier.network_mode or self.verifier_environment().network_mode

    def allowed_hosts(self, phase: Phase) -> list[str]:
        """The hosts an allowlist phase may reach: its own list, else its environment's."""
        if phase == "build":
            return []
        own = self.agent.allowed_hosts if phase == "agent" else self.verifier.allowed_hosts
        environment = self.environment if phase == "agent" else self.verifier_environment()
        return list(own or environment.allowed_hosts or [])

    def unsupported(self) -> list[str]:
        """Why assay cannot run this task (empty when it can); a compose file is the caller's."""
        reasons: list[str] = []
        environments = [self.environment]
        if self.verifier_mode() == "separate" and self.verifier.environment is not None:
            environments.append(self.verifier.environment)
        environments += [
            step.verifier.environment for step in self.steps or [] if step.verifier.environment
        ]
        for environment in environments:
            reasons += _environment_unsupported(environment)
        reasons += [
            f"collect_service:{hook.service}"
            for hook in self.verifier.collect
            if hook.service != "main"
        ]
        reasons += [
            f"artifact_service:{artifact.service}"
            for artifact in self.artifacts
            if artifact.service not in (None, "main")
        ]
        return list(dict.fromkeys(reasons))

    def pass_threshold(self) -> float:
        """[metadata].pass_threshold when it is a number in [0, 1], else 1.0."""
        value = self.metadata.get("pass_threshold")
        if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1:
            return float(value)
        return 1.0

    def split(self) -> Split:
        """[metadata].split when it is train, dev or holdout, else train."""
        value = self.metadata.get("split")
        return value if value in ("train", "dev", "holdout") else "train"


def _environment_unsupported(environment: EnvironmentConfig) -> list[str]:
    reasons = []
    if environment.gpus:
        reasons.append("unsupported_environment:gpus")
    if environment.tpu:
        reasons.append("unsupported_environment:tpu")
    if environment.os == "windows":
        reasons.append("unsupported_environment:windows")
    if environment.mcp_servers:
        reasons.append("unsupported_environment:mcp_servers")
    return reasons
