"""Every other model provider, through LiteLLM (the `providers` extra): a model named
`<provider>/<model>` (anthropic/…, vertex_ai/…, bedrock/…, gemini/…) is asked in that provider's
native API, tool calls included, and answered in the Chat Completions shape the agent reads."""

from __future__ import annotations

import os
from importlib.util import find_spec
from typing import Any

from assay.errors import UsageError

PROVIDERS_EXTRA = "pip install 'assay[providers]'"
# Names an OpenAI-compatible server gives its models whole ("openai/gpt-oss-20b" on vLLM): they
# keep going through the OpenAI SDK as they always have.
OPENAI_PREFIXES = ("openai",)


def routes_through_litellm(model: str | None, base_url: str | None, needed_by: str) -> bool:
    """Whether `model` names one of LiteLLM's providers; UsageError with the install line when
    it looks like one and LiteLLM is missing (no base URL, so no OpenAI-compatible server either);
    `needed_by` names what asked for the model in that error."""
    if not model or "/" not in model:
        return False
    prefix = model.split("/", 1)[0]
    if prefix in OPENAI_PREFIXES:
        return False
    if find_spec("litellm") is None:
        if base_url or os.environ.get("OPENAI_BASE_URL"):
            return False  # an OpenAI-compatible server's own model id, as before
        raise UsageError(
            f"{needed_by}: model {model!r} is asked in its provider's native API, which needs "
            f"LiteLLM; {PROVIDERS_EXTRA}"
        )
    return prefix in _litellm().provider_list


def _litellm() -> Any:
    # LiteLLM fetches its price table from the network when imported unless told to use its own.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    return litellm


class LiteLLMClient:
    """The OpenAI SDK client's `chat.completions.create` over `litellm.completion`, with the same
    retries (429, 5xx, timeouts, with backoff) and time limit."""

    def __init__(self, base_url: str | None, retries: int, timeout_s: float):
        self.chat = self
        self.completions = self
        self.base_url = base_url
        self.retries = retries
        self.timeout_s = timeout_s

    def create(self, **request: Any) -> Any:
        litellm = _litellm()
        if self.base_url:
            request["api_base"] = self.base_url
        return litellm.completion(
            **request, num_retries=self.retries, timeout=self.timeout_s, drop_params=True
        )
