"""The chat model provider every model in assay is asked through: options, the SDK's client, one
counted request. The agent, the customer, the judge and the build all use it."""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field, fields
from typing import Any

from assay.errors import UsageError

MODEL_EXTRA = "pip install 'assay[model]'"


@dataclass(frozen=True)
class ModelOptions:
    """How to reach the model and what to ask of it (the run's settings: `assay.settings`)."""

    base_url: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    retries: int = 4
    timeout_s: float = 60.0
    max_connections: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def request_options(self) -> dict[str, Any]:
        chosen = {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed}
        return {**{k: v for k, v in chosen.items() if v is not None}, **self.extra}


@dataclass
class Usage:
    """What one model's requests cost: calls, tokens, time waiting for replies."""

    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_latency_s: float = 0.0

    def plus(self, other: Usage) -> Usage:
        return Usage(
            **{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)}
        )


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


def require_sdk(needed_by: str) -> None:
    """UsageError naming `needed_by` (the option or check that asks for a model) and the extra
    to install, when the openai package is missing."""
    try:
        import openai  # noqa: F401
    except ImportError:
        raise UsageError(f"{needed_by}: the openai package is missing; {MODEL_EXTRA}") from None


def make_client(
    options: ModelOptions, needed_by: str = "--agent model:…", model: str | None = None
) -> Any:
    """The official SDK's client: retries with exponential backoff and jitter on 429, 5xx,
    timeouts and dropped connections, `options.retries` times. `needed_by` names what asked for
    a model in the error when the SDK is missing; a `model` named `<provider>/<model>` gets
    LiteLLM's client for that provider's native API instead."""
    from assay.litellm_provider import LiteLLMClient, routes_through_litellm

    if routes_through_litellm(model, options.base_url, needed_by):
        return LiteLLMClient(options.base_url, options.retries, options.timeout_s)
    require_sdk(needed_by)
    import openai

    return openai.OpenAI(
        base_url=options.base_url or os.environ.get("OPENAI_BASE_URL"),
        api_key=os.environ.get("OPENAI_API_KEY") or "not-needed",
        max_retries=options.retries,
        timeout=options.timeout_s,
    )


def provider_error(error: Exception) -> str:
    status = getattr(error, "status_code", None)
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return f"{status} {text}" if status else f"{type(error).__name__}: {text}"
