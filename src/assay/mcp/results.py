"""What a tool call returns to an MCP client: the events the in-process loop would show (the
result, held writes, faults with their `operation_id`, customer messages, rejections) as JSON text
and as structured content; `isError` when the call did not succeed."""

from __future__ import annotations

import json
from typing import Any

from mcp import types

from assay.served.wire import Completion
from assay.taskrun.observation import Observation

ENDED = "the task run has ended; call finish to grade it"


def observed(observation: Observation) -> types.CallToolResult:
    """Everything since the previous action; `isError` unless the call's own result is OK."""
    events = [
        event.model_dump(mode="json", by_alias=True, exclude_none=True)
        for event in observation.events
    ]
    if observation.done:
        events.append({"type": "notice", "text": ENDED})
    own = next((event for event in observation.events if event.type == "tool_result"), None)
    shown = {
        "events": events,
        "turn": observation.turn,
        "turns_left": observation.turns_left,
        "done": observation.done,
    }
    return structured(shown, error=own is not None and own.status != "OK")


def graded(completion: Completion, *, scored: bool) -> types.CallToolResult:
    """The graded task run; a scored run shows only its outcome, reward, score and verdict."""
    if scored:
        shown = completion.model_dump(
            mode="json", include={"outcome", "reward", "score", "verdict"}
        )
    else:
        shown = completion.model_dump(mode="json", by_alias=True)
    return structured(shown)


def refused(message: str) -> types.CallToolResult:
    """A call the server could not carry out (the task run has ended, none is started, …)."""
    return structured({"error": message}, error=True)


def noted(result: types.CallToolResult, **more: Any) -> types.CallToolResult:
    """The same result with more said (what comes next)."""
    return structured({**result.structured_content, **more}, error=result.is_error)


def structured(shown: dict[str, Any], *, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(shown, ensure_ascii=False))],
        structured_content=shown,
        is_error=error,
    )
