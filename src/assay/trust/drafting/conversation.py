"""The build's conversation with the model: it answers with `submit_task` calls, to the first
request and to each repair request."""

from __future__ import annotations

import json
from typing import Any

from assay.errors import UsageError
from assay.provider import ModelOptions, ProviderFailed, Usage, counted_reply, make_client
from assay.taskrun.agents.model import assistant_message
from assay.trust.drafting.prompt import SUBMIT_TASK


class ModelFailed(UsageError):
    """The model provider failed after its retries: the build stops, nothing half-published."""


class Drafting:
    """One conversation: `ask()` sends it and returns the TOML texts the model submitted."""

    def __init__(self, model: str, messages: list[dict[str, Any]], options: ModelOptions):
        self.model = model
        self.options = options
        self.client = make_client(options, "--model", model)
        self.messages = list(messages)
        self.usage = Usage()

    def ask(self) -> list[str]:
        """The model's next reply, as the drafts of its submit_task calls (in order)."""
        message = self._reply()
        calls = list(message.tool_calls or [])
        self.messages.append(assistant_message(message, calls))
        drafts = []
        for call in calls:
            text, answer = _draft_of(call)
            if text is not None:
                drafts.append(text)
                answer = f"received as draft {len(drafts)} of this reply"
            self.messages.append({"role": "tool", "tool_call_id": call.id, "content": answer})
        return drafts

    def tell(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    def _reply(self) -> Any:
        try:
            return counted_reply(
                self.client,
                self.usage,
                model=self.model,
                messages=self.messages,
                tools=[SUBMIT_TASK],
                **self.options.request_options(),
            )
        except ProviderFailed as failed:
            raise ModelFailed(f"--model: the model provider failed: {failed.reason}") from None


def _draft_of(call: Any) -> tuple[str | None, str]:
    """The TOML a submit_task call carries, or None and what was wrong with the call."""
    if call.function.name != SUBMIT_TASK["function"]["name"]:
        return None, f"refused: there is no tool {call.function.name!r}; call submit_task"
    try:
        arguments = json.loads(call.function.arguments or "{}")
    except ValueError:
        return None, 'refused: the arguments are not JSON; send {"toml": "..."}'
    text = arguments.get("toml") if isinstance(arguments, dict) else None
    if not isinstance(text, str) or not text.strip():
        return None, "refused: submit_task needs `toml`, the task file's text"
    return text, ""
