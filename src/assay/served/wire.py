"""The API's requests and responses; snake_case JSON, unknown fields refused."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from assay.formats.task import Split
from assay.formats.verifier_choice import SHARED_REFUSED, VerifierChoice
from assay.runs.aggregate import Figures
from assay.score.summary import Summary
from assay.score.task import Axis, Outcome, Verdict
from assay.served.errors import ErrorDetail
from assay.taskrun.actions import ToolCall
from assay.taskrun.observation import Observation
from assay.verify.check_run import CheckRun


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateRun(Request):
    benchmark: str = Field(
        min_length=1, description="`world@version`, or `world` if one version is served"
    )
    tasks: list[str] | None = Field(None, description="task ids; default: every task of the splits")
    split: list[Split] | None = Field(None, description="default: train and dev")
    repeats: int = Field(1, ge=1, le=100)
    scored: bool | None = Field(
        None, description="default: false; an evaluate key's runs are always scored"
    )
    agent: str = Field("http", min_length=1, max_length=200, description="a label for the agent")
    verifier_mode: VerifierChoice = Field(
        "task",
        description="container-format tasks: task verifies each as its task.toml says; separate "
        "verifies every one in a fresh sandbox holding only its declared artifacts",
    )

    @field_validator("verifier_mode", mode="before")
    @classmethod
    def _not_shared(cls, value: Any) -> Any:
        if value == "shared":
            raise ValueError(SHARED_REFUSED)
        return value


class Act(Request):
    """Exactly one of `call` or `say`; finishing is `/complete`."""

    call: ToolCall | None = None
    say: str | None = None

    @model_validator(mode="after")
    def _one_action(self) -> Act:
        if (self.call is None) == (self.say is None):
            raise ValueError("send exactly one of call or say")
        return self

    def action(self) -> dict[str, Any]:
        if self.call is not None:
            return {"call": self.call.model_dump()}
        return {"say": self.say}


class Complete(Request):
    output: str = ""


class BenchmarkRef(BaseModel):
    slug: str
    version: str
    name: str


class TaskRunLink(BaseModel):
    id: str
    task_id: str
    name: str
    repeat: int
    phase: str
    start_url: str
    act_url: str
    complete_url: str
    mcp_url: str


class RunCreated(BaseModel):
    benchmark_run_id: str
    benchmark: BenchmarkRef
    scored: bool
    verifier_mode: VerifierChoice
    phase: Literal["created"]
    bearer_token: str
    bearer_token_expires_at: str
    endpoints: dict[str, str]
    task_runs: list[TaskRunLink]


class CheckRunOut(CheckRun):
    """A criterion run: one check's result, with details and evidence unless withheld."""

    id: str | None = None
    task_run_id: str | None = None


class Completion(BaseModel):
    task_run_id: str
    phase: Literal["completed"]
    status: str
    outcome: Outcome
    reward: int | None
    score: float | None
    verdict: Verdict | None
    axes: dict[str, Axis]
    summary: Summary
    checks: list[CheckRunOut]
    error: dict[str, str] | None


class TaskRunOut(BaseModel):
    id: str
    benchmark_run_id: str
    task_id: str
    name: str
    repeat: int
    phase: str
    status: str
    result: Completion | None = None


class BenchmarkRunOut(BaseModel):
    id: str
    benchmark: BenchmarkRef
    agent: str
    scored: bool
    verifier_mode: VerifierChoice
    phase: str
    status: str
    created_at: str
    started_at: str | None
    finished_at: str | None
    task_runs: list[TaskRunOut]
    aggregate: Figures | None


class CheckRunPage(BaseModel):
    data: list[CheckRunOut]
    next_cursor: str | None


class RejectedBody(BaseModel):
    """A refused call: the error, and the observation in which the attempt was recorded."""

    error: ErrorDetail
    observation: Observation | None = None
