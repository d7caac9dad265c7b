"""A local stand-in for a model server: real HTTP on a free loopback port, speaking OpenAI chat
completions, OpenAI responses and Anthropic messages (whole or streamed, see modelwire), scripted
replies, and the failures a real provider has (429, 5xx, slowness, bad tool calls)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import modelwire

Reply = dict[str, Any]  # {"content": text} or {"calls": [(name, args or raw JSON text)]}
# The routes the stand-in answers, each by the API it speaks.
ROUTES = {"/v1/chat/completions": "chat", "/v1/responses": "responses", "/v1/messages": "messages"}


def solution_replies(task: Any) -> list[Reply]:
    """What a model that knows the task's reference solution would reply, step by step."""
    replies: list[Reply] = []
    for step in task.solution.steps:
        if step.call is not None:
            replies.append({"calls": [(step.call, step.args)]})
        elif step.say is not None:
            replies.append({"content": step.say})
        else:
            replies.append({"calls": [("finish", {"output": step.finish or ""})]})
    return replies


class ScriptedModel:
    """Replies by the conversation's first user message (the task's request) and by how many
    times the model has already answered in it."""

    def __init__(self, scripts: dict[str, list[Reply]]):
        self.scripts = scripts

    def __call__(self, body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        users = [i for i, m in enumerate(messages) if m["role"] == "user"]
        # The first user message a script is for (an agent may send examples before the request);
        # the replies the model gave after it, its answers in this conversation.
        found = [
            (i, s)
            for i in users
            if (s := script_for(self.scripts, text_of(messages[i]["content"])))
        ]
        start, script = found[0] if found else (users[0] if users else 0, [])
        answered = sum(1 for m in messages[start:] if m["role"] == "assistant")
        if answered < len(script):
            return script[answered]
        return {"calls": [("finish", {"output": "done"})]}


def solutions_model(tasks: Iterable[Any]) -> ScriptedModel:
    """A model that plays each task's reference solution, found by the task's request."""
    return ScriptedModel(
        {task.customer.request: solution_replies(task) for task in tasks if task.solution}
    )


def text_of(content: Any) -> str:
    """A message's text, whether a string or a list of parts."""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def script_for(scripts: dict[str, list[Reply]], request: str) -> list[Reply]:
    """The script of the request itself, else of the one request it quotes (a CLI agent wraps the
    instruction in its own prompt)."""
    if request in scripts:
        return scripts[request]
    quoted = [script for key, script in scripts.items() if key and key in request]
    return quoted[0] if len(quoted) == 1 else []


class StandIn:
    """The server; `fail(n, status)` makes the next n requests fail with that status."""

    def __init__(self, model: Callable[[dict[str, Any]], Reply], latency_s: float = 0.0):
        self.model = model
        self.latency_s = latency_s
        self.bodies: list[dict[str, Any]] = []
        self.served_tokens = [0, 0]
        self._failures: list[int] = []
        self.in_flight = 0
        self.most_in_flight = 0  # the most requests it was answering at one time
        self._lock = threading.Condition()
        self._gather = 0
        self._calls = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def fail(self, times: int, status: int) -> None:
        with self._lock:
            self._failures += [status] * times

    def gather(self, requests: int) -> None:
        """Hold the next requests until `requests` of them are in flight together (or 10 s pass):
        a test of overlap then does not depend on how fast the machine starts its processes."""
        with self._lock:
            self._gather = requests

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> StandIn:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def answer(self, body: dict[str, Any], api: str = "chat") -> tuple[int, dict[str, Any]]:
        """The reply to one request in `api`'s shape (or the error of a failure set with `fail`)."""
        with self._lock:
            self.bodies.append(body)
            if self._failures:
                status = self._failures.pop(0)
                return status, {
                    "error": {"message": f"stand-in failure {status}", "type": "server_error"}
                }
            self._calls += 1
            number = self._calls
        with self._lock:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            if self._gather:
                if self.in_flight >= self._gather:
                    self._gather = 0
                    self._lock.notify_all()
                else:
                    self._lock.wait_for(lambda: not self._gather, timeout=10)
        time.sleep(self.latency_s)
        with self._lock:
            self.in_flight -= 1
        messages = modelwire.conversation(api, body)
        reply = self.model({**body, "messages": messages})
        prompt = sum(len(json.dumps(m)) for m in messages) // 4
        completion = 10
        with self._lock:
            self.served_tokens[0] += prompt
            self.served_tokens[1] += completion
        write = {
            "chat": completion_json,
            "responses": modelwire.response_object,
            "messages": modelwire.anthropic_message,
        }[api]
        return 200, write(body.get("model", ""), number, reply, prompt, completion)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                api = ROUTES.get(self.path.split("?")[0].rstrip("/"))
                if api is None:
                    status, answer = 404, {"error": {"message": "no such route"}}
                else:
                    status, answer = stand_in.answer(body, api)
                kind = "application/json"
                data = json.dumps(answer).encode()
                if status == 200 and body.get("stream"):
                    events = STREAMS[api](answer)
                    kind, data = "text/event-stream", modelwire.sse(events, done=api == "chat")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", kind)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped waiting (its timeout): nobody is left to answer

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


STREAMS = {
    "chat": modelwire.chat_events,
    "responses": modelwire.response_events,
    "messages": modelwire.anthropic_events,
}


def completion_json(
    model: str, number: int, reply: Reply, prompt: int, completion: int
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
    calls = reply.get("calls") or []
    if calls:
        message["tool_calls"] = [
            {
                "id": f"call_{number}_{index}",
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": args if isinstance(args, str) else json.dumps(args),
                },
            }
            for index, (name, args) in enumerate(calls)
        ]
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }
