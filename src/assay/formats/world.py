"""`world.toml` as a model."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

RESERVED_PREFIX = "sandbox_"


class Strict(BaseModel, defer_build=True):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DatabaseSpec(Strict):
    backend: Literal["sqlite", "postgresql"] = "sqlite"
    schema_file: str = Field(alias="schema")
    seed: list[str] = []

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class ServiceSpec(BaseModel, defer_build=True):
    """`name = "kind"` or `name = { kind = "...", <options> }`; options go to the service."""

    model_config = ConfigDict(extra="allow", frozen=True)

    kind: str

    @model_validator(mode="before")
    @classmethod
    def _from_kind_string(cls, value: Any) -> Any:
        return {"kind": value} if isinstance(value, str) else value

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class RoleSpec(Strict):
    tools: list[str]
    description: str = ""
    instructions: str | None = None  # a file in the world directory, added to the world's


class AgentSpec(Strict):
    """What every agent of the world is told before it acts."""

    instructions: str | None = None  # a file in the world directory: the policy agents follow


class WorldSpec(Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    version: str
    description: str = ""
    clock: datetime = datetime(2026, 1, 1, tzinfo=UTC)
    clock_step_s: float = Field(60.0, ge=0, allow_inf_nan=False)
    tools: list[str] = []
    verifiers: list[str] = []
    database: DatabaseSpec
    services: dict[str, ServiceSpec] = {}
    roles: dict[str, RoleSpec] = {}
    agent: AgentSpec = AgentSpec()
    check_timeout_s: float = Field(2.0, gt=0, allow_inf_nan=False)
    tool_timeout_s: float = Field(10.0, gt=0, allow_inf_nan=False)

    @field_validator("clock")
    @classmethod
    def _clock_is_utc(cls, value: datetime) -> datetime:
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)

    @field_validator("version", mode="before")
    @classmethod
    def _version_as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int | float) else value
