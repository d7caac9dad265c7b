"""The `[[checks]]` of a task file: one model per check kind, chosen by `assert`.

Each built-in kind is declared where its model is (`@check_kind`); a user's kind is a subclass of
`CheckBase` named by `assert = "module:Class"` or by an entry point in the group `assay.checks`.
The union of them all, `Check`, is built in `check_union.py`.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar, get_args

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from assay.registry import Registry

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
    """The fields every check has; a kind adds `kind: Literal["<its name>"]` (alias `assert`)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    # "module:function" running the kind, `(check, VerifyContext) -> CheckRun`, imported on first use
    runner: ClassVar[str] = ""
    # A typed check: the service kind it reads, and "module:function" giving `(field, problem)`
    # for each of its paths that does not compile (`assay validate` runs it before any task run)
    reads_service: ClassVar[str | None] = None
    compiler: ClassVar[str | None] = None

    name: str = Field(min_length=1)
    type: CheckType = "goal"
    weight: float = Field(1.0, gt=0, allow_inf_nan=False)  # finite and positive
    axis: str | None = None

    if TYPE_CHECKING:  # each kind's own `kind: Literal[...]` field, for type checkers
        kind: str


def kind_name(model: type[CheckBase]) -> str | None:
    """The one `assert` value a check model takes (its `kind: Literal[...]`), or None."""
    field = model.model_fields.get("kind")
    names = get_args(field.annotation) if field is not None else ()
    return names[0] if len(names) == 1 and isinstance(names[0], str) else None


def _is_check_model(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, CheckBase) and kind_name(value) is not None


CHECK_KINDS: Registry[type[CheckBase]] = Registry(
    "check kind",
    group="assay.checks",
    accepts=_is_check_model,
    expected='a subclass of assay.CheckBase with kind: Literal["<name>"]',
)
Model = TypeVar("Model", bound=type[CheckBase])


def check_kind(model: Model) -> Model:
    """Declare a built-in check kind, by the `assert` value its model takes."""
    name = kind_name(model)
    assert name is not None, f"{model.__name__} has no kind: Literal[...]"
    CHECK_KINDS.declare(name, model)
    return model


class Derived(BaseModel, defer_build=True):
    """A wanted value computed by a query, usually on the starting state."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sql: str
    params: dict[str, Scalar] = {}
    db: Literal["initial", "final"] = "initial"


@check_kind
class SqlCheck(CheckBase):
    kind: Literal["sql"] = Field("sql", alias="assert")
    runner = "assay.verify.sql:run_sql_check"
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


@check_kind
class AnswerCheck(CheckBase):
    kind: Literal["answer"] = Field(alias="assert")
    runner = "assay.verify.answer:run_answer_check"
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


@check_kind
class PythonCheck(CheckBase):
    kind: Literal["python"] = Field(alias="assert")
    verifier: str


@check_kind
class ScriptCheck(CheckBase):
    """A container-format task's test script: it writes reward files the check reads
    (docs/contracts/container.md §5)."""

    kind: Literal["script"] = Field(alias="assert")
    runner = "assay.verify.script:run_script_check"
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


@check_kind
class FhirResourceStateCheck(CheckBase, Counted):
    """A FHIR search on the final state returns a resource with the expected field values."""

    kind: Literal["fhir-resource-state"] = Field(alias="assert")
    runner = "assay.verify.healthcare.fhir:run_fhir_check"
    reads_service = "fhir"
    compiler = "assay.verify.healthcare.fhir:compile_fhir_check"
    resource_type: str = Field(min_length=1)
    search: dict[str, str | list[str]] = {}  # a list repeats the parameter (AND)
    fields: list[FieldItem] = []
    changed: bool = False
    service: str | None = None


@check_kind
class PortalStateMatchCheck(CheckBase, Counted):
    """A row of the portal's state, chosen by `correlate_by`, has the expected values."""

    kind: Literal["portal-state-match"] = Field(alias="assert")
    runner = "assay.verify.healthcare.portal:run_portal_check"
    reads_service = "portal"
    compiler = "assay.verify.healthcare.portal:compile_portal_check"
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


@check_kind
class VoiceTranscriptCheck(CheckBase):
    """Phrases a speaker said (and did not say) on the voice line."""

    kind: Literal["voice-transcript"] = Field(alias="assert")
    runner = "assay.verify.healthcare.voice:run_voice_check"
    reads_service = "voice"
    compiler = "assay.verify.healthcare.voice:compile_voice_check"
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


@check_kind
class Hl7StructuralCheck(CheckBase, Counted):
    """An outbound HL7 v2 message the interface accepted (AA), chosen by `correlate_by`, has the
    expected values at HL7 paths (`PID.5.1`, `OBX[2].5`)."""

    kind: Literal["hl7-structural"] = Field(alias="assert")
    runner = "assay.verify.healthcare.hl7:run_hl7_check"
    reads_service = "hl7"
    compiler = "assay.verify.healthcare.hl7:compile_hl7_check"
    correlate_by: dict[str, Scalar] = {}
    fields: list[FieldItem] = []
    valid: bool | None = None
    service: str | None = None


@check_kind
class SftpFilePresentCheck(CheckBase, Counted):
    """At least one file of the shared tree matches a glob, read by `format`, with the expected
    fields; by default it must have been written during the task run."""

    kind: Literal["sftp-file-present"] = Field(alias="assert")
    runner = "assay.verify.healthcare.files:run_files_check"
    reads_service = "files"
    compiler = "assay.verify.healthcare.files:compile_files_check"
    path: str = Field(min_length=1, validation_alias=AliasChoices("path", "glob", "path_pattern"))
    format: Literal["json", "csv", "hl7", "x12", "text"] | None = None
    fields: list[FieldItem] = []
    changed: bool = True
    service: str | None = None


@check_kind
class X12ResponseCheck(CheckBase, Counted):
    """A clearinghouse response of one transaction set, chosen by `correlate_by` (paths into the
    response or its request), has the expected values at X12 paths (`EB[EB01=B].07`)."""

    kind: Literal["x12-response"] = Field(alias="assert")
    runner = "assay.verify.healthcare.x12:run_x12_check"
    reads_service = "x12"
    compiler = "assay.verify.healthcare.x12:compile_x12_check"
    transaction_set: Literal["271", "277", "999", "TA1"]  # what the clearinghouse answers
    correlate_by: dict[str, Scalar] = {}
    fields: list[FieldItem] = []
    service: str | None = None


@check_kind
class JudgeCheck(CheckBase):
    """Opt-in: a model reads the agent's final output (and named query results) against a rubric.
    Marked `judged` everywhere; state checks stay the default and the recommended way."""

    kind: Literal["judge"] = Field(alias="assert")
    runner = "assay.verify.judge:run_judge_check"
    rubric: str = Field(min_length=1)
    model: str | None = None
    queries: dict[str, str] = {}  # name → one SELECT on the final state, shown to the judge
