"""A benchmark run's configuration: every setting that shapes it, in one model the CLI and
`assay.evaluate` build (and runs made over HTTP, by the SDK or by an RL pool record from what they
chose and the settings in force), sent to its workers as run settings and stored with the run
beside assay's version and the world's digest."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from assay.formats.verifier_choice import VerifierChoice, verifier_choice
from assay.provider import ModelOptions
from assay.settings import RunSettings, in_force

DEFAULT_AGENT = "reference"
# where and how fast a run's task runs happen, not what they do: a resumed run may change these
PLACEMENT = frozenset({"executor", "workers", "concurrency", "ray_address", "world_db"})


class ModelConfig(BaseModel, defer_build=True):
    """How to reach the model (a model agent's, a model customer's, a judge's) and what to ask."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_url: str | None = None
    temperature: float | None = None
    max_tokens: int | None = Field(None, ge=1)
    seed: int | None = None
    args: dict[str, Any] = Field(default_factory=dict)  # more request fields, each as given
    retries: int = Field(4, ge=0)
    timeout_s: float = Field(60.0, gt=0)
    max_connections: int | None = Field(None, ge=1)

    def options(self) -> ModelOptions:
        return ModelOptions(
            base_url=self.base_url,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            seed=self.seed,
            retries=self.retries,
            timeout_s=self.timeout_s,
            max_connections=self.max_connections,
            extra=dict(self.args),
        )

    @classmethod
    def of(cls, options: ModelOptions) -> ModelConfig:
        """The configuration that gives these options (`options` turned back)."""
        return cls(
            base_url=options.base_url,
            temperature=options.temperature,
            max_tokens=options.max_tokens,
            seed=options.seed,
            args=dict(options.extra),
            retries=options.retries,
            timeout_s=options.timeout_s,
            max_connections=options.max_connections,
        )


class RunConfig(BaseModel, defer_build=True):
    """Every setting that shapes a benchmark run: what runs (agent, tasks, repeats), how it is
    asked and graded (model, judge, customer, pass threshold, verifier mode) and where it runs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    agent: str = DEFAULT_AGENT
    tasks: tuple[str, ...] = ()
    splits: tuple[str, ...] = ()  # none: the default splits
    repeats: int = Field(1, ge=1)
    scored: bool = False
    include_withdrawn: bool = False
    model: ModelConfig = Field(default_factory=ModelConfig)
    judge_model: str | None = None
    customer: str | None = None  # model:<name>
    pass_threshold: float | None = Field(None, ge=0, le=1, allow_inf_nan=False)
    verifier_mode: VerifierChoice = "task"
    action_timeout_s: float = Field(60.0, gt=0)
    agent_endpoints: tuple[str, ...] = ()
    executor: Literal["pool", "ray"] = "pool"
    workers: int | None = Field(None, ge=1)
    concurrency: int = Field(1, ge=1)
    ray_address: str | None = None
    world_db: str | None = None

    @field_validator("customer")
    @classmethod
    def _a_model(cls, value: str | None) -> str | None:
        if value is not None and (not value.startswith("model:") or value == "model:"):
            raise ValueError(f"{value!r} is not model:<name>")
        return value

    @field_validator("executor", mode="before")
    @classmethod
    def _an_executor(cls, value: object) -> object:
        if isinstance(value, str) and value not in ("pool", "ray"):
            raise ValueError(f"{value!r} is neither pool nor ray")
        return value

    @field_validator("verifier_mode", mode="before")
    @classmethod
    def _a_choice(cls, value: object) -> object:
        return verifier_choice(value) if isinstance(value, str) else value

    def settings(self) -> RunSettings:
        """What its task runs read where they need it (`assay.settings`)."""
        return RunSettings(
            model=self.model.options(),
            judge_model=self.judge_model,
            customer_model=None if self.customer is None else self.customer.removeprefix("model:"),
            pass_threshold=self.pass_threshold,
            agent_endpoints=self.agent_endpoints,
        )


def config_in_force(**chosen: Any) -> RunConfig:
    """The configuration of a run made other than by `assay run` (over HTTP, by the SDK, by an
    RL pool): what it chose (`chosen`: RunConfig's settings, such as agent, tasks, repeats) and
    the run settings in force in this process (`assay.settings`: model, judge, customer, pass
    threshold, agent endpoints), which its task runs read."""
    settings = in_force()
    customer = settings.customer_model
    return RunConfig.model_validate(
        {
            "model": ModelConfig.of(settings.model),
            "judge_model": settings.judge_model,
            "customer": None if customer is None else f"model:{customer}",
            "pass_threshold": settings.pass_threshold,
            "agent_endpoints": settings.agent_endpoints,
            **chosen,
        }
    )


class StoredConfig(BaseModel, defer_build=True):
    """What a benchmark run keeps of how it was made: its configuration, assay's version and the
    digest of the world's files."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run: RunConfig
    assay_version: str
    world_digest: str


def stored_config(config: RunConfig, world_digest: str) -> StoredConfig:
    """The record of `config` for a run of the world whose files have this digest
    (`assay.world.digest.files_digest`: a loaded world's `files_digest`); a server's password
    left out."""
    from assay import __version__

    kept = config.model_copy(update={"world_db": _without_password(config.world_db)})
    return StoredConfig(run=kept, assay_version=__version__, world_digest=world_digest)


def _without_password(url: str | None) -> str | None:
    parts = urlsplit(url) if url else None
    if parts is None or parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


def flat(values: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """`{"model": {"seed": 1}}` → `{"model.seed": 1}`: each setting by its dotted name."""
    found: dict[str, Any] = {}
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and key != "args":
            found.update(flat(value, f"{name}."))
        else:
            found[name] = value
    return found


def differences(a: dict[str, Any], b: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """`(setting, in a, in b)` for each setting, assay version or world digest that differs
    between two stored configurations (`StoredConfig` as JSON)."""
    first, second = _settings(a), _settings(b)
    names = sorted(set(first) | set(second))
    return [
        (name, first.get(name), second.get(name))
        for name in names
        if first.get(name) != second.get(name)
    ]


def _settings(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored configuration's settings by dotted name, with assay's version and the digest."""
    return {**flat(stored.get("run", {})), **{k: v for k, v in stored.items() if k != "run"}}


def changed_settings(stored: RunConfig, given: RunConfig) -> list[str]:
    """The settings, other than where the run happens (`PLACEMENT`), `given` sets otherwise."""
    first, second = flat(stored.model_dump(mode="json")), flat(given.model_dump(mode="json"))
    return [name for name in first if name not in PLACEMENT and first[name] != second.get(name)]
