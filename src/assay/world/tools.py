"""Tools: typed Python functions an agent may call; the signature is the argument schema."""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    PydanticSchemaGenerationError,
    PydanticUserError,
    TypeAdapter,
    ValidationError,
    create_model,
)

from assay.formats.files import field_path


class InvalidArguments(ValueError):
    """The arguments do not match the tool's schema; the message says which and why."""


class Tool:
    """A function marked with `@tool`; calling it directly still calls the function."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        writes: bool = False,
        name: str | None = None,
        description: str | None = None,
    ):
        self.fn = fn
        self.name = name or fn.__name__
        self.writes = writes
        told, described = _docstring(fn.__doc__)
        self.description = description or told
        self.arguments = _argument_model(fn, self.name)
        self.schema = _with_descriptions(
            _strip_titles(self.arguments.model_json_schema()), described
        )
        self.__wrapped__ = fn
        self.__doc__ = fn.__doc__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<tool {self.name}{' (writes)' if self.writes else ''}>"

    def validate(self, args: Any) -> dict[str, Any]:
        """The arguments as the function will receive them, or InvalidArguments."""
        if not isinstance(args, dict):
            raise InvalidArguments(f"arguments for {self.name} must be an object")
        try:
            parsed = self.arguments.model_validate(args)
        except ValidationError as error:
            problems = "; ".join(
                f"{field_path(tuple(e['loc'])) or 'arguments'}: {_plain(e)}"
                for e in error.errors(include_url=False)
            )
            raise InvalidArguments(f"invalid arguments for {self.name}: {problems}") from None
        return {name: getattr(parsed, name) for name in type(parsed).model_fields}

    def describe(self) -> dict[str, Any]:
        """The tool as an agent sees it."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": self.schema,
            "writes": self.writes,
        }


def tool(
    fn: Callable[..., Any] | None = None, *, writes: bool = False, name: str | None = None
) -> Any:
    """Mark a function `fn(world, ...)` as a tool; `writes=True` when it has effects."""
    if fn is not None:
        return Tool(fn, writes=writes, name=name)
    return lambda inner: Tool(inner, writes=writes, name=name)


def _argument_model(fn: Callable[..., Any], name: str) -> type[BaseModel]:
    signature = inspect.signature(fn)
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as error:  # an annotation naming something that does not exist
        raise TypeError(f"tool {name}: cannot read its type annotations: {error}") from None
    parameters = list(signature.parameters.values())[1:]  # the first is the world
    fields: dict[str, Any] = {}
    for parameter in parameters:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise TypeError(f"tool {name}: *args and **kwargs cannot be described to an agent")
        annotation = hints.get(parameter.name, Any)
        default = ... if parameter.default is parameter.empty else parameter.default
        fields[parameter.name] = (annotation, default)
    config = ConfigDict(extra="forbid")
    try:
        model = create_model(f"{name}_arguments", __config__=config, **fields)
        model.model_json_schema()  # a type pydantic validates may still have no JSON Schema
        return model
    except (PydanticSchemaGenerationError, PydanticUserError, TypeError):
        raise TypeError(_unsupported(name, fields)) from None


def _unsupported(name: str, fields: dict[str, Any]) -> str:
    """One line naming the parameter whose annotation has no JSON Schema."""
    for parameter, (annotation, _) in fields.items():
        try:
            TypeAdapter(annotation).json_schema()
        except Exception:
            shown = getattr(annotation, "__name__", None) or repr(annotation)
            return (
                f"tool {name}: parameter {parameter}: type {shown} cannot be described to an "
                "agent; use str, int, float, bool, list, dict, Literal or a pydantic model"
            )
    return f"tool {name}: its signature cannot be described to an agent"


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {
            key: _strip_titles(value)
            for key, value in schema.items()
            if not (key == "title" and isinstance(value, str))
        }
    if isinstance(schema, list):
        return [_strip_titles(item) for item in schema]
    return schema


ARGS_HEADINGS = ("args:", "arguments:", "parameters:")
ARG_LINE = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def _docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """The whole docstring as the tool's description, and the parameters an `Args:` section
    describes (Google style: `name: text`, continued on indented lines), taken out of it."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip().lower() in ARGS_HEADINGS), None)
    if start is None:
        return "\n".join(lines).strip(), {}
    described: dict[str, str] = {}
    current = None
    end = len(lines)
    for index in range(start + 1, len(lines)):
        line = lines[index]
        if line and not line[0].isspace():  # the section ends at the next unindented line
            end = index
            break
        found = ARG_LINE.match(line)
        if found and (line.startswith("    ") and not line.startswith("        ")):
            current = found.group(1).lstrip("*")
            described[current] = found.group(2).strip()
        elif current and line.strip():
            described[current] = f"{described[current]} {line.strip()}".strip()
    kept = [*lines[:start], *lines[end:]]
    return "\n".join(kept).strip(), described


def _with_descriptions(schema: dict[str, Any], described: dict[str, str]) -> dict[str, Any]:
    """Each parameter's description from the docstring, unless its annotation gave one."""
    for name, text in described.items():
        field = schema.get("properties", {}).get(name)
        if isinstance(field, dict) and "description" not in field and text:
            field["description"] = text
    return schema


def _plain(error: dict[str, Any]) -> str:
    return "unknown argument" if error["type"] == "extra_forbidden" else error["msg"].lower()


def retry_operation(world: Any, operation_id: str) -> dict[str, Any]:
    """Re-send a write whose outcome was unknown or failed, safely: a write that already happened
    returns its original result and is not repeated."""
    raise NotImplementedError("the task run handles retry_operation itself")


RETRY_OPERATION = Tool(retry_operation)
BUILTIN_TOOLS = {RETRY_OPERATION.name: RETRY_OPERATION}
