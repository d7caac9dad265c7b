"""A chat model as the agent, over any OpenAI-compatible Chat Completions endpoint.

The model's calls of the role's tools become Calls, a reply without a tool call is said to the
customer, and `finish(output)` ends the task run. The provider's failures are retried with backoff by
the client; one that still fails ends the task run not scored (the agent side), never not achieved.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from assay.errors import AgentFailure, UsageError
from assay.taskrun.agents.conversation import event_messages, system_message, tool_schemas
from assay.taskrun.observation import Observation

OPTIONS_ENV = "ASSAY_MODEL_OPTIONS"  # JSON of ModelOptions, so worker processes get them too
RAW_ARGUMENTS = "__unparsed_arguments__"  # arguments that were not JSON: the call is refused


@dataclass(frozen=True)
class ModelOptions:
    """How to reach the model and what to ask of it (from the command line or $ASSAY_MODEL_OPTIONS)."""

    base_url: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    retries: int = 4
    timeout_s: float = 60.0
    max_connections: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_env(cls) -> ModelOptions:
        text = os.environ.get(OPTIONS_ENV)
        if not text:
            return cls()
        try:
            return cls(**json.loads(text))
        except (ValueError, TypeError) as error:
            raise UsageError(f"{OPTIONS_ENV}: not model options: {error}") from None

    def request_options(self) -> dict[str, Any]:
        chosen = {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed}
        return {**{k: v for k, v in chosen.items() if v is not None}, **self.extra}


@dataclass
class Usage:
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_latency_s: float = 0.0


class ModelAgent:
    """One task run's conversation with the model; a fresh agent for every task run."""

    def __init__(
        self,
        model: str,
        options: ModelOptions | None = None,
        client: Any = None,
        gate: threading.Semaphore | None = None,
    ):
        self.model = model
        self.options = options or ModelOptions.from_env()
        self.client = client or make_client(self.options)
        self.gate = gate or threading.Semaphore(1_000_000)  # shared: --max-connections
        self.messages: list[dict[str, Any]] = []
        self.usage = Usage()
        self._pending: list[str] = []  # tool call ids still waiting for their result
        self._queued: list[dict[str, Any]] = []  # further calls of the model's last reply

    @property
    def transcript(self) -> list[dict[str, Any]]:
        return self.messages

    def act(self, observation: Observation) -> dict[str, Any]:
        if not self.messages:
            self.messages.append(system_message(observation))
        self.messages += event_messages(observation.events, self._pending)
        if self._queued:
            return self._queued.pop(0)
        reply = self._ask(observation)
        return self._actions(reply)

    def _ask(self, observation: Observation) -> Any:
        try:
            return counted_reply(
                self.client,
                self.usage,
                self.gate,
                model=self.model,
                messages=self.messages,
                tools=tool_schemas(observation),
                **self.options.request_options(),
            )
        except ProviderFailed as failed:
            raise AgentFailure(f"model provider failed: {failed.reason}") from None

    def _actions(self, message: Any) -> dict[str, Any]:
        """The reply as actions: the first now, the rest queued; text alone is said."""
        calls = list(message.tool_calls or [])
        self.messages.append(assistant_message(message, calls))
        if not calls:
            return {"say": message.content or ""}
        actions = []
        for call in calls:
            self._pending.append(call.id)
            name, args = call.function.name, _arguments(call.function.arguments)
            if name == "finish":
                output = args.get("output", "") if isinstance(args, dict) else ""
                actions.append({"finish": str(output)})
                break
            actions.append({"call": {"tool": name, "args": args}})
        self._queued = actions[1:]
        return actions[0]


class ProviderFailed(Exception):
    """The provider's request failed after its retries, or its reply had no choices."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def counted_reply(
    client: Any, usage: Usage, gate: threading.Semaphore | None = None, **request: Any
) -> Any:
    """The first choice's message of one Chat Completions request, counted in `usage` (calls,
    latency, tokens) whether or not it succeeds; ProviderFailed says why it did not."""
    started = time.perf_counter()
    try:
        if gate is None:
            response = client.chat.completions.create(**request)
        else:
            with gate:
                response = client.chat.completions.create(**request)
    except Exception as error:  # the SDK has already retried what can be retried
        raise ProviderFailed(provider_error(error)) from None
    finally:
        usage.model_calls += 1
        usage.model_latency_s += time.perf_counter() - started
    if response.usage is not None:
        usage.prompt_tokens += response.usage.prompt_tokens or 0
        usage.completion_tokens += response.usage.completion_tokens or 0
    if not response.choices:
        raise ProviderFailed("a reply with no choices")
    return response.choices[0].message


def make_client(options: ModelOptions) -> Any:
    """The official SDK's client: retries with exponential backoff and jitter on 429, 5xx,
    timeouts and dropped connections, `options.retries` times."""
    try:
        import openai
    except ImportError:
        raise UsageError(
            "--agent model:…: the openai package is missing; pip install 'assay[model]'"
        ) from None
    return openai.OpenAI(
        base_url=options.base_url or os.environ.get("OPENAI_BASE_URL"),
        api_key=os.environ.get("OPENAI_API_KEY") or "not-needed",
        max_retries=options.retries,
        timeout=options.timeout_s,
    )


def _arguments(text: str | None) -> Any:
    """The call's arguments; text that is not a JSON object is passed on so the call is refused
    as a rejected attempt the model sees."""
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {RAW_ARGUMENTS: text}
    return value if isinstance(value, dict) else {RAW_ARGUMENTS: text}


def assistant_message(message: Any, calls: list[Any]) -> dict[str, Any]:
    """The model's reply as the conversation keeps it, with its tool calls."""
    sent: dict[str, Any] = {"role": "assistant", "content": message.content}
    if calls:
        sent["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.function.name, "arguments": call.function.arguments},
            }
            for call in calls
        ]
    return sent


def provider_error(error: Exception) -> str:
    status = getattr(error, "status_code", None)
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return f"{status} {text}" if status else f"{type(error).__name__}: {text}"
