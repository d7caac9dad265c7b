"""`Check`, the union a task's `[[checks]]` are read as: every built-in kind of `CHECK_KINDS` by its
`assert`, and one branch that finds a user's kind (an entry point's name, or `module:Class`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Union

from pydantic import BaseModel, Discriminator, PlainValidator, Tag
from pydantic_core import InitErrorDetails, ValidationError

from assay.formats.checks import CHECK_KINDS, CheckBase, kind_name
from assay.registry import KindError, is_reference


def _refusal(kind: Any, problem: str) -> ValidationError:
    """The error of a check's `assert`, as a field validator would raise it."""
    detail = InitErrorDetails(
        type="value_error", loc=("assert",), input=kind, ctx={"error": problem}
    )
    return ValidationError.from_exception_data("Check", [detail])


def user_check_model(kind: str) -> type[CheckBase]:
    """The model of a kind not built in: a `module:Class` reference or an entry point's name;
    KindError (one line naming the reference) when there is none or it cannot load."""
    if not is_reference(kind):
        found = CHECK_KINDS.find(kind)
        if found is None:
            raise KindError(f"unknown assert {kind!r} (known: {', '.join(CHECK_KINDS.known())})")
        return found
    model = CHECK_KINDS.load(kind)
    name = kind_name(model)
    assert name is not None  # the registry accepts only models with a kind
    return CHECK_KINDS.register(name, model, kind)


def _user_check(data: Any) -> CheckBase:
    """A check of a user's kind, validated by its own model."""
    if isinstance(data, CheckBase):
        return data
    kind = data["assert"]
    if not isinstance(kind, str):
        raise _refusal(kind, f"assert is text, not {type(kind).__name__}")
    try:
        model = user_check_model(kind)
    except KindError as error:
        raise _refusal(kind, str(error)) from None
    return model.model_validate({**data, "assert": kind_name(model)})


def _check_tag(data: Any) -> str | None:
    if isinstance(data, BaseModel):
        kind = getattr(data, "kind", None)
        built_in = kind in CHECK_KINDS.builtins and type(data) is CHECK_KINDS.get(kind)
        return f"<{kind}>" if built_in else "<user>"
    if not isinstance(data, dict):
        return None
    kind = data.get("assert")
    if kind is None:
        return "<sql>"
    return f"<{kind}>" if kind in CHECK_KINDS.builtins else "<user>"


def _check_union() -> Any:
    """The discriminated union of the built-in kinds, and one branch for every user's kind."""
    built_in = [Annotated[CHECK_KINDS.get(name), Tag(f"<{name}>")] for name in CHECK_KINDS.builtins]
    user = Annotated[Any, PlainValidator(_user_check), Tag("<user>")]
    return Annotated[Union[tuple([*built_in, user])], Discriminator(_check_tag)]  # noqa: UP007


if TYPE_CHECKING:
    Check = CheckBase
else:
    Check = _check_union()
