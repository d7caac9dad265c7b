"""A model playing the customer (opt-in, `--customer model:<name>`): it answers the agent's
messages from the task's `[customer]` text, persona and instructions, instead of the scripted
replies. The request and the changes still arrive exactly as scripted; every turn is recorded."""

from __future__ import annotations

from typing import Any

from assay.errors import EnvironmentFailure
from assay.formats.task import Customer
from assay.provider import ProviderFailed, Usage, counted_reply, make_client
from assay.settings import in_force
from assay.taskrun.customer import CustomerScript

SATISFIED = "###SATISFIED###"


class ModelCustomer(CustomerScript):
    def __init__(self, spec: Customer, model: str, client: Any = None):
        super().__init__(spec)
        self.model = model
        self.options = in_force().model
        self.client = client or make_client(self.options, "--customer model:…", model)
        self.usage = Usage()  # counted in the task run's usage with the agent's
        self.satisfied = False
        self.turns: list[dict[str, str]] = []  # the conversation as the customer saw it

    def reply(self, text: str) -> str:
        self.contacts += 1
        self.turns.append({"role": "user", "content": text})
        answer = self._ask()
        if SATISFIED in answer:
            self.satisfied = True
            answer = answer.replace(SATISFIED, "").strip() or "Thank you, that is all I needed."
        self.turns.append({"role": "assistant", "content": answer})
        return answer

    def _ask(self) -> str:
        try:
            message = counted_reply(
                self.client,
                self.usage,
                model=self.model,
                messages=[{"role": "system", "content": self._brief()}, *self.turns],
                **self.options.request_options(),
            )
        except ProviderFailed as failed:
            raise EnvironmentFailure(
                f"the customer's model provider failed: {failed.reason}"
            ) from None
        return message.content or ""

    def _brief(self) -> str:
        parts = [
            "You are a customer talking to a support agent. Stay in character; answer in one or "
            "two sentences; never do the agent's work.",
            f"What you want: {self.request}",
        ]
        if self.spec.persona:
            parts.append(f"Who you are: {self.spec.persona}")
        if self.spec.instructions:
            parts.append(f"What you know and how you behave: {self.spec.instructions}")
        parts.append(
            f"Once your request has been fully taken care of, end your reply with {SATISFIED}."
        )
        return "\n\n".join(parts)


def customer_for(spec: Customer) -> CustomerScript:
    """The scripted customer, or a model customer when `--customer model:<name>` asked for one."""
    chosen = in_force().customer_model
    if not chosen:
        return CustomerScript(spec)
    return ModelCustomer(spec, chosen)
