"""How the stand-in model server reads a request and writes its reply in each API a command-line
agent speaks: OpenAI chat completions, OpenAI responses and Anthropic messages, each whole or as
the server-sent events of a streamed reply."""

from __future__ import annotations

import json
from typing import Any

Reply = dict[str, Any]  # {"content": text} and/or {"calls": [(name, args or raw JSON text)]}
Event = tuple[str | None, dict[str, Any]]  # (the SSE event name, its data)


def conversation(api: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's conversation as chat messages (role and text), the shape scripts read."""
    if api == "responses":
        return _responses_conversation(body)
    messages = list(body.get("messages") or [])
    if api == "messages" and body.get("system"):
        messages.insert(0, {"role": "system", "content": body["system"]})
    return messages


def _responses_conversation(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Responses input items: each run of the model's own items (its messages, its function
    calls) is one assistant turn."""
    items = body.get("input")
    if isinstance(items, str):
        return [{"role": "user", "content": items}]
    messages: list[dict[str, Any]] = []
    for item in items or []:
        kind = item.get("type", "message")
        if kind == "function_call" or (kind == "message" and item.get("role") == "assistant"):
            if not messages or messages[-1]["role"] != "assistant":
                messages.append({"role": "assistant", "content": ""})
        elif kind == "message":
            messages.append({"role": item.get("role", "user"), "content": item.get("content")})
        elif kind == "function_call_output":
            messages.append({"role": "tool", "content": item.get("output")})
    return messages


def _arguments(args: Any) -> str:
    return args if isinstance(args, str) else json.dumps(args)


# -- Anthropic messages -----------------------------------------------------------------------


def anthropic_message(model: str, number: int, reply: Reply, prompt: int, completion: int) -> dict:
    content: list[dict[str, Any]] = []
    if reply.get("content"):
        content.append({"type": "text", "text": reply["content"]})
    for index, (name, args) in enumerate(reply.get("calls") or []):
        arguments = json.loads(_arguments(args))
        content.append(
            {"type": "tool_use", "id": f"toolu_{number}_{index}", "name": name, "input": arguments}
        )
    return {
        "id": f"msg_{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if reply.get("calls") else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": prompt, "output_tokens": completion},
    }


def anthropic_events(message: dict[str, Any]) -> list[Event]:
    """The stream of a message, as Anthropic's API sends it."""
    start = {
        **message,
        "content": [],
        "stop_reason": None,
        "usage": {**message["usage"], "output_tokens": 0},
    }
    events: list[Event] = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            opened, delta = (
                {"type": "text", "text": ""},
                {"type": "text_delta", "text": block["text"]},
            )
        else:
            opened = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opened},
            )
        )
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    stopped = {"stop_reason": message["stop_reason"], "stop_sequence": None}
    usage = {"output_tokens": message["usage"]["output_tokens"]}
    events.append(("message_delta", {"type": "message_delta", "delta": stopped, "usage": usage}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


# -- OpenAI responses -------------------------------------------------------------------------


def response_object(model: str, number: int, reply: Reply, prompt: int, completion: int) -> dict:
    output: list[dict[str, Any]] = []
    if reply.get("content"):
        text = {"type": "output_text", "text": reply["content"], "annotations": []}
        output.append(
            {
                "type": "message",
                "id": f"msg_{number}",
                "status": "completed",
                "role": "assistant",
                "content": [text],
            }
        )
    for index, (name, args) in enumerate(reply.get("calls") or []):
        call_id = f"call_{number}_{index}"
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{number}_{index}",
                "call_id": call_id,
                "name": name,
                "arguments": _arguments(args),
                "status": "completed",
            }
        )
    usage = {
        "input_tokens": prompt,
        "output_tokens": completion,
        "total_tokens": prompt + completion,
    }
    usage |= {
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    }
    return {
        "id": f"resp_{number}",
        "object": "response",
        "created_at": 0,
        "status": "completed",
        "model": model,
        "output": output,
        "usage": usage,
    }


def response_events(response: dict[str, Any]) -> list[Event]:
    """The stream of a response, as OpenAI's API sends it."""
    events: list[Event] = []
    started = {**response, "status": "in_progress", "output": [], "usage": None}
    events.append(("response.created", {"type": "response.created", "response": started}))
    for index, item in enumerate(response["output"]):
        events.append(
            (
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": index, "item": item},
            )
        )
        if item["type"] == "message":
            text = item["content"][0]["text"]
            delta = {
                "type": "response.output_text.delta",
                "output_index": index,
                "content_index": 0,
                "item_id": item["id"],
                "delta": text,
            }
            events.append(("response.output_text.delta", delta))
        events.append(
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": index, "item": item},
            )
        )
    events.append(("response.completed", {"type": "response.completed", "response": response}))
    return events


# -- OpenAI chat completions, streamed ----------------------------------------------------------


def chat_events(completion: dict[str, Any]) -> list[Event]:
    """The stream of a chat completion, as OpenAI's API sends it: one chunk with the message
    (text and tool calls, each with its index), one with the usage, then the `[DONE]` sentinel."""
    choice = completion["choices"][0]
    message = choice["message"]
    delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        delta["tool_calls"] = [
            {"index": index, **call} for index, call in enumerate(message["tool_calls"])
        ]
    head = {key: completion[key] for key in ("id", "created", "model")}
    head["object"] = "chat.completion.chunk"
    chunk = {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    end = {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]}
    usage = {**head, "choices": [], "usage": completion["usage"]}
    return [(None, chunk), (None, end), (None, usage)]


def sse(events: list[Event], *, done: bool = False) -> bytes:
    """Server-sent events, each named when it has a name; `done` ends them with `data: [DONE]`
    (chat completions' sentinel)."""
    lines = []
    for name, data in events:
        lines.append((f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n")
    if done:
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()
