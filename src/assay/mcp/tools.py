"""The tools an MCP client sees: the role's tools with the JSON Schemas the world derives, and the
harness's own: `reply_to_customer` and `finish` (and `start_task` on a server for a benchmark)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp import types

REPLY = "reply_to_customer"
FINISH = "finish"
START = "start_task"
RESERVED = (REPLY, FINISH, START)

_TEXT = {"type": "string"}


def role_tools(described: list[dict[str, Any]]) -> list[types.Tool]:
    """The role's tools as `Session.tool_list` describes them; a tool that only reads says so."""
    return [
        types.Tool(
            name=tool["name"],
            description=tool.get("description") or None,
            input_schema=tool["parameters"],
            annotations=types.ToolAnnotations(read_only_hint=not tool.get("writes", False)),
        )
        for tool in described
    ]


def own_tools() -> list[types.Tool]:
    """`reply_to_customer(text)` and `finish(output)`, offered with every task run."""
    return [
        types.Tool(
            name=REPLY,
            description="Send a message to the customer; returns the customer's answer. "
            "Each message is one turn.",
            input_schema=_object(text=_TEXT | {"description": "Your message to the customer."}),
        ),
        types.Tool(
            name=FINISH,
            description="End the task when the work is done (or cannot be done), with your final "
            "answer to the customer. The world is then graded; returns the outcome.",
            input_schema=_object(output=_TEXT | {"description": "Your final answer."}),
        ),
    ]


def start_tool(left: Mapping[str, str]) -> types.Tool:
    """`start_task(task_id)` over the tasks still to run (id → title)."""
    listing = "; ".join(f"{task_id} ({title})" for task_id, title in left.items()) or "none"
    return types.Tool(
        name=START,
        description="Start the next task run of a task: resets its world and returns its request "
        f"and instructions; its tools are then listed. Tasks left: {listing}.",
        input_schema=_object(task_id={"type": "string", "enum": list(left)}),
    )


def _object(**properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }
