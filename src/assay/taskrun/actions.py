"""The three things an agent can do, as the same JSON the HTTP API takes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError


class Action(BaseModel, defer_build=True):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolCall(BaseModel, defer_build=True):
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


class InvalidAction(ValueError):
    """Not one of call, say or finish."""


def call(tool: str, **args: Any) -> Call:
    """The action calling `tool` with `args`: `call("find_order", order_id="A-1042")`."""
    return Call(call=ToolCall(tool=tool, args=args))


def say(text: str) -> Say:
    """The action sending `text` to the customer."""
    return Say(say=text)


def finish(output: str = "") -> Finish:
    """The action ending the task run, with `output` as the agent's final answer."""
    return Finish(finish=output)


ONE_OF = 'an action is one of {"call": {"tool": ..., "args": {...}}}, {"say": ...}, {"finish": ...}'
KINDS: dict[str, type[Action]] = {"call": Call, "say": Say, "finish": Finish}
_TYPED = (Call, Say, Finish)  # a tuple: `Call | Say | Finish` is built again at each call


def parse_action(value: Any) -> AnyAction:
    """An action from its JSON form (or a typed action, returned as it is)."""
    if isinstance(value, _TYPED):
        return value
    if not isinstance(value, dict) or len(value) != 1:
        raise InvalidAction(ONE_OF)
    key = next(iter(value))
    kind = KINDS.get(key) if isinstance(key, str) else None
    if kind is None:
        raise InvalidAction(f"invalid action: unknown action {str(key)!r}; {ONE_OF}")
    try:
        return kind.model_validate(value)  # type: ignore[return-value]
    except ValidationError as error:
        raise InvalidAction(f"invalid action: {_problem(error)}") from None


def _problem(error: ValidationError) -> str:
    """The first problem as the user would say it: `finish must be a string`."""
    first = error.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"])
    kind = first["type"]
    if kind == "extra_forbidden":
        return f"{where}: unknown key"
    if kind == "missing":
        return f"{where} is required"
    if kind.startswith("string"):
        return f"{where} must be a string"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        shape = ' {"tool": ..., "args": {...}}' if where == "call" else ""
        return f"{where} must be an object{shape}"
    return f"{where}: {first['msg']}"


def action_json(action: AnyAction) -> dict[str, Any]:
    return action.model_dump(mode="json")
