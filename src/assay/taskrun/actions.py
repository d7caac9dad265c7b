"""The three things an agent can do, as the same JSON the HTTP API takes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError


class Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str
    args: dict[str, Any] = {}


class Call(Action):
    """`{"call": {"tool": ..., "args": {...}}}`: call one of the role's tools."""

    call: ToolCall


class Say(Action):
    """`{"say": "..."}`: a message to the customer."""

    say: str


class Finish(Action):
    """`{"finish": "..."}`: the agent is done; the text is its final output."""

    finish: str = ""


AnyAction = Call | Say | Finish
_parser: TypeAdapter[AnyAction] = TypeAdapter(AnyAction)


class InvalidAction(ValueError):
    """Not one of call, say or finish."""


def call(tool: str, **args: Any) -> Call:
    return Call(call=ToolCall(tool=tool, args=args))


def say(text: str) -> Say:
    return Say(say=text)


def finish(output: str = "") -> Finish:
    return Finish(finish=output)


def parse_action(value: Any) -> AnyAction:
    """An action from its JSON form (or a typed action, returned as it is)."""
    if isinstance(value, Call | Say | Finish):
        return value
    if not isinstance(value, dict) or len(value) != 1:
        raise InvalidAction(
            'an action is one of {"call": {"tool": ..., "args": {...}}}, {"say": ...}, {"finish": ...}'
        )
    try:
        return _parser.validate_python(value)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"][1:])
        raise InvalidAction(f"invalid action at {where or 'top'}: {first['msg']}") from None


def action_json(action: AnyAction) -> dict[str, Any]:
    return action.model_dump(mode="json")
