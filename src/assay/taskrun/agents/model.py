"""A chat model as the agent, over any OpenAI-compatible Chat Completions endpoint.

The model's calls of the role's tools become Calls, a reply without a tool call is said to the
customer, and `finish(output)` ends the task run. The provider's failures are retried with backoff by
the client; one that still fails ends the task run not scored (the agent side), never not achieved.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from assay.errors import AgentFailure, UsageError
from assay.provider import ModelOptions, ProviderFailed, Usage, counted_reply, make_client
from assay.settings import in_force
from assay.taskrun.agents.conversation import event_messages, system_message, tool_schemas
from assay.taskrun.agents.names import AgentName
from assay.taskrun.observation import Observation

RAW_ARGUMENTS = "__unparsed_arguments__"  # arguments that were not JSON: the call is refused


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
        self.options = options or in_force().model
        self.client = client or make_client(self.options, model=model)
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


def model_agents(name: AgentName, action_timeout_s: float) -> Callable[..., ModelAgent]:
    """`--agent model:<name>`: one client, its connections shared by every task run's agent."""
    if not name.argument:
        raise UsageError("--agent: name the model, as model:<name>")
    options = in_force().model
    client = make_client(options, model=name.argument)
    gate = threading.BoundedSemaphore(options.max_connections or 1_000_000)
    return lambda task, repeat=0: ModelAgent(name.argument, options, client, gate)
