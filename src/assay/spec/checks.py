"""The `[[checks]]` of a task file: one model per check kind, chosen by `assert`."""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)

CheckType = Literal["goal", "rule", "optional"]
Scalar = int | float | str | bool | None


def _not_nan(value: Any) -> Any:
    """NaN equals nothing, itself included: a check wanting it could never pass."""
    values = value if isinstance(value, list) else [value]
    if any(isinstance(item, float) and math.isnan(item) for item in values):
        raise ValueError("nan equals nothing, itself included; give a number")
    return value


OPERATORS = {
    "eq": "eq",
    "ne": "ne",
    "gt": "gt",
    "ge": "ge",
    "lt": "lt",
    "le": "le",
    "==": "eq",
    "!=": "ne",
    ">": "gt",
    ">=": "ge",
    "<": "lt",
    "<=": "le",
}


class CheckBase(BaseModel, defer_build=True):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    name: str = Field(min_length=1)
    type: CheckType = "goal"
    weight: float = Field(1.0, gt=0, allow_inf_nan=False)  # finite and positive
    axis: str | None = None


class Derived(BaseModel, defer_build=True):
    """A wanted value computed by a query, usually on the starting state."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sql: str
    params: dict[str, Scalar] = {}
    db: Literal["initial", "final"] = "initial"


class SqlCheck(CheckBase):
    kind: Literal["sql"] = Field("sql", alias="assert")
    sql: str
    params: dict[str, Scalar] = {}
    op: str = "eq"
    expect: Scalar | Derived = None
    db: Literal["initial", "final"] = "final"

    _expect_not_nan = field_validator("expect")(_not_nan)

    @field_validator("op")
    @classmethod
    def _known_operator(cls, value: str) -> str:
        if value not in OPERATORS:
            allowed = ", ".join(OPERATORS)
            raise ValueError(f"unknown comparison {value!r}; use one of {allowed}")
        return OPERATORS[value]


ANSWER_FLAGS = re.IGNORECASE  # `matches` ignores case, as `contains` and `any_of` do


class AnswerCheck(CheckBase):
    kind: Literal["answer"] = Field(alias="assert")
    contains: list[str] = []
    not_contains: list[str] = []
    any_of: list[str] = []
    matches: list[str] = []
    number: float | Derived | None = None
    tolerance: float = Field(0.01, ge=0, allow_inf_nan=False)

    _number_not_nan = field_validator("number")(_not_nan)

    @field_validator("contains", "not_contains", "any_of", "matches", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("any_of", "matches")
    @classmethod
    def _nothing_empty(cls, value: list[str]) -> list[str]:
        if "" in value:
            raise ValueError("an empty string is found in every answer")
        return value

    @field_validator("matches")
    @classmethod
    def _regular_expressions(cls, value: list[str]) -> list[str]:
        for pattern in value:
            try:
                re.compile(pattern, ANSWER_FLAGS)
            except re.error as error:
                raise ValueError(f"{pattern!r} is not a regular expression: {error}") from None
        return value

    @model_validator(mode="after")
    def _something_to_check(self) -> AnswerCheck:
        conditions = (self.contains, self.not_contains, self.any_of, self.matches)
        if not (any(conditions) or self.number is not None):
            raise ValueError(
                "an answer check needs any_of, matches, contains, not_contains or number"
            )
        return self


class PythonCheck(CheckBase):
    kind: Literal["python"] = Field(alias="assert")
    verifier: str


class ScriptCheck(CheckBase):
    """A container-format task's test script: it writes reward files the check reads
    (docs/contracts/container.md §5)."""

    kind: Literal["script"] = Field(alias="assert")
    script: str = "tests/test.sh"
    pass_threshold: float = Field(1.0, ge=0, le=1, allow_inf_nan=False)


ITEM_OPERATORS = (*OPERATORS.values(), "contains", "in", "exists", "absent", "matches")


class FieldItem(BaseModel, defer_build=True):
    """One thing a typed check asserts about the selected record: `path <op> expected`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str = Field(min_length=1)
    expected: Scalar | list[Scalar] = None
    op: str = "eq"

    _expected_not_nan = field_validator("expected")(_not_nan)

    @field_validator("op")
    @classmethod
    def _known_operator(cls, value: str) -> str:
        value = OPERATORS.get(value, value)
        if value not in ITEM_OPERATORS:
            raise ValueError(
                f"unknown comparison {value!r}; use one of {', '.join(ITEM_OPERATORS)}"
            )
        return value


class Counted(BaseModel, defer_build=True):
    """A typed check that counts what its selection matched: `count = N` asks for exactly N, and
    `count = 0` or `absent = true` asks that nothing matches (then there is nothing to check fields
    on, so none may be given)."""

    count: int | None = Field(None, ge=0)
    absent: bool = False

    @model_validator(mode="after")
    def _none_asked_alone(self) -> Counted:
        if self.absent and self.count not in (None, 0):
            raise ValueError(
                f"absent = true asks that nothing matches; count = {self.count} contradicts it"
            )
        if self.asks_none:
            asked = "absent = true" if self.absent else "count = 0"
            for name in ("fields", "assertions"):
                if getattr(self, name, None):
                    raise ValueError(
                        f"{asked} asks that nothing matches: {name} cannot be checked on nothing"
                    )
            if getattr(self, "valid", None) is not None:
                raise ValueError(
                    f"{asked} asks that nothing matches: valid cannot be checked on nothing"
                )
        return self

    @property
    def asks_none(self) -> bool:
        return self.absent or self.count == 0


class FhirResourceStateCheck(CheckBase, Counted):
    """A FHIR search on the final state returns a resource with the expected field values."""

    kind: Literal["fhir-resource-state"] = Field(alias="assert")
    resource_type: str = Field(min_length=1)
    search: dict[str, str | list[str]] = {}  # a list repeats the parameter (AND)
    fields: list[FieldItem] = []
    changed: bool = False
    service: str | None = None


class PortalStateMatchCheck(CheckBase, Counted):
    """A row of the portal's state, chosen by `correlate_by`, has the expected values."""

    kind: Literal["portal-state-match"] = Field(alias="assert")
    correlate_by: dict[str, Scalar]
    assertions: list[FieldItem] = Field([], validation_alias=AliasChoices("assertions", "fields"))
    changed: bool = False
    service: str | None = None

    @field_validator("correlate_by")
    @classmethod
    def _names_a_resource(cls, value: dict[str, Scalar]) -> dict[str, Scalar]:
        if not isinstance(value.get("resource"), str) or not value["resource"]:
            raise ValueError('needs resource = "<portal resource>"')
        return value


class VoiceTranscriptCheck(CheckBase):
    """Phrases a speaker said (and did not say) on the voice line."""

    kind: Literal["voice-transcript"] = Field(alias="assert")
    speaker: Literal["agent", "caller", "any"] = "agent"
    contains: list[str] = []
    not_contains: list[str] = []
    any_of: list[list[str]] = []
    fuzzy: int | None = Field(None, ge=1, le=100)
    call: Literal["first", "last", "any"] = "any"
    service: str | None = None

    @model_validator(mode="after")
    def _some_phrase(self) -> VoiceTranscriptCheck:
        phrases = [*self.contains, *self.not_contains, *(p for group in self.any_of for p in group)]
        if not phrases:
            raise ValueError("a voice-transcript check needs contains, not_contains or any_of")
        if any(not phrase.strip() for phrase in phrases):
            raise ValueError("an empty phrase is found in every transcript")
        return self


class Hl7StructuralCheck(CheckBase, Counted):
    """An outbound HL7 v2 message the interface accepted (AA), chosen by `correlate_by`, has the
    expected values at HL7 paths (`PID.5.1`, `OBX[2].5`)."""

    kind: Literal["hl7-structural"] = Field(alias="assert")
    correlate_by: dict[str, Scalar] = {}
    fields: list[FieldItem] = []
    valid: bool | None = None
    service: str | None = None


class SftpFilePresentCheck(CheckBase, Counted):
    """At least one file of the shared tree matches a glob, read by `format`, with the expected
    fields; by default it must have been written during the task run."""

    kind: Literal["sftp-file-present"] = Field(alias="assert")
    path: str = Field(min_length=1, validation_alias=AliasChoices("path", "glob", "path_pattern"))
    format: Literal["json", "csv", "hl7", "x12", "text"] | None = None
    fields: list[FieldItem] = []
    changed: bool = True
    service: str | None = None


class X12ResponseCheck(CheckBase, Counted):
    """A clearinghouse response of one transaction set, chosen by `correlate_by` (paths into the
    response or its request), has the expected values at X12 paths (`EB[EB01=B].07`)."""

    kind: Literal["x12-response"] = Field(alias="assert")
    transaction_set: Literal["271", "277", "999", "TA1"]  # what the clearinghouse answers
    correlate_by: dict[str, Scalar] = {}
    fields: list[FieldItem] = []
    service: str | None = None


class JudgeCheck(CheckBase):
    """Opt-in: a model reads the agent's final output (and named query results) against a rubric.
    Marked `judged` everywhere; state checks stay the default and the recommended way."""

    kind: Literal["judge"] = Field(alias="assert")
    rubric: str = Field(min_length=1)
    model: str | None = None
    queries: dict[str, str] = {}  # name → one SELECT on the final state, shown to the judge


HEALTHCARE_CHECKS = (
    "fhir-resource-state",
    "hl7-structural",
    "portal-state-match",
    "sftp-file-present",
    "voice-transcript",
    "x12-response",
)


KNOWN_CHECKS = ("sql", "answer", "python", "script", "judge", *HEALTHCARE_CHECKS)


class UnknownCheck(CheckBase):
    """A check whose `assert` assay does not know: refused as it loads, naming the kinds it knows."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)

    kind: str = Field(alias="assert")

    @field_validator("kind")
    @classmethod
    def _refused(cls, value: str) -> str:
        raise ValueError(f"unknown assert {value!r} (known: {', '.join(KNOWN_CHECKS)})")


def _check_tag(data: Any) -> str | None:
    if isinstance(data, BaseModel):
        data = {"assert": getattr(data, "kind", None)}
    if not isinstance(data, dict):
        return None
    kind = data.get("assert")
    if kind is None:
        return "<sql>"
    return f"<{kind}>" if kind in KNOWN_CHECKS else "<unknown>"


Check = Annotated[
    Annotated[SqlCheck, Tag("<sql>")]
    | Annotated[AnswerCheck, Tag("<answer>")]
    | Annotated[PythonCheck, Tag("<python>")]
    | Annotated[ScriptCheck, Tag("<script>")]
    | Annotated[JudgeCheck, Tag("<judge>")]
    | Annotated[FhirResourceStateCheck, Tag("<fhir-resource-state>")]
    | Annotated[Hl7StructuralCheck, Tag("<hl7-structural>")]
    | Annotated[PortalStateMatchCheck, Tag("<portal-state-match>")]
    | Annotated[SftpFilePresentCheck, Tag("<sftp-file-present>")]
    | Annotated[VoiceTranscriptCheck, Tag("<voice-transcript>")]
    | Annotated[X12ResponseCheck, Tag("<x12-response>")]
    | Annotated[UnknownCheck, Tag("<unknown>")],
    Discriminator(_check_tag),
]
