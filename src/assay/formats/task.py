"""A task file (`tasks/<id>.toml`) as a model."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from assay.formats.check_union import Check

Split = Literal["train", "dev", "holdout"]
CHANGE_AT = re.compile(r"^(first_write|turn:[1-9][0-9]*|after:[A-Za-z_][A-Za-z0-9_]*)$")


class Strict(BaseModel, defer_build=True):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Reply(Strict):
    match: list[str] = Field(min_length=1)
    say: str

    @field_validator("match", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


class Change(Strict):
    at: str
    say: str

    @field_validator("at")
    @classmethod
    def _known_moment(cls, value: str) -> str:
        if not CHANGE_AT.match(value):
            raise ValueError(f"{value!r} is not first_write, turn:N or after:<tool>")
        return value


class Customer(Strict):
    request: str
    default_reply: str = "I'm not sure, sorry."
    replies: list[Reply] = []
    changes: list[Change] = []
    persona: str | None = None  # who a model customer (`--customer model:…`) plays
    instructions: str | None = None  # what it knows and how it behaves


class Fault(Strict):
    tool: str
    call: int = Field(1, ge=1)
    effect: Literal["fail", "unknown"]


class Step(Strict):
    """One scripted action: `{ call, args }`, `{ say }` or `{ finish }`."""

    call: str | None = None
    args: dict[str, Any] = {}
    say: str | None = None
    finish: str | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Step:
        given = [name for name in ("call", "say", "finish") if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError("a step has exactly one of call, say or finish")
        if self.args and self.call is None:
            raise ValueError("args belong to a call step")
        return self


class Solution(Strict):
    steps: list[Step]


class WrongSolution(Strict):
    name: str = Field(min_length=1)
    steps: list[Step]


class TaskSpec(Strict):
    id: str
    title: str
    split: Split = "train"
    role: str
    max_turns: int = Field(20, ge=1)
    max_contacts: int | None = Field(None, ge=0)
    time_limit_s: float | None = Field(None, gt=0, allow_inf_nan=False)
    customer: Customer
    faults: list[Fault] = []
    checks: list[Check] = []
    solution: Solution | None = None
    wrong: list[WrongSolution] = []

    def wrong_solution(self, name: str) -> WrongSolution | None:
        return next((wrong for wrong in self.wrong if wrong.name == name), None)
