"""`assay run --agent model:anthropic/<model>` through LiteLLM: the Anthropic Messages API, tool
calls, retries and usage, against the local stand-in model server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest
from modelkit import StandIn, solutions_model
from worldkit import SHOP

from assay.runs import open_benchmark

if find_spec("litellm") is None:
    pytest.skip("needs the providers extra", allow_module_level=True)
ASSAY = str(Path(sys.executable).parent / "assay")


@pytest.fixture(scope="module")
def stand_in():
    with StandIn(solutions_model(open_benchmark(SHOP).tasks.values())) as server:
        yield server


def run(tmp_path, *args):
    env = {**os.environ, "ASSAY_HOME": str(tmp_path / "home"), "ANTHROPIC_API_KEY": "stand-in"}
    return subprocess.run(
        [ASSAY, "run", str(SHOP), *args, "--json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def outcomes(done):
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    errors = [r["error"] for r in data["task_runs"] if r.get("error")]
    assert not errors, errors
    return data, {r["task_id"]: r["outcome"] for r in data["task_runs"]}


def test_an_anthropic_model_drives_the_benchmark_through_its_native_api(stand_in, tmp_path):
    _, reference = outcomes(run(tmp_path, "--agent", "reference"))
    before = len(stand_in.bodies)
    stand_in.fail(2, 529)  # Anthropic's "overloaded": retried, never seen by the agent
    base = stand_in.url.removesuffix("/v1")
    data, model = outcomes(
        run(tmp_path, "--agent", "model:anthropic/claude-stand-in", "--base-url", base)
    )
    assert model == reference
    sent = stand_in.bodies[before:]
    assert all(body["model"] == "claude-stand-in" for body in sent)
    assert all("system" in body and "max_tokens" in body for body in sent)  # Messages API shape
    answered = [b for b in sent if any(m["role"] == "user" for m in b["messages"][1:])]
    results = [
        part
        for body in answered
        for message in body["messages"]
        if isinstance(message["content"], list)
        for part in message["content"]
        if part.get("type") == "tool_result"
    ]
    assert results, "the tools' results go back as Anthropic tool_result blocks"
    summary = data["benchmark_run"]["summary"]
    assert summary["model_calls"] == len(sent) - 2  # a request's retries are one call
    assert summary["prompt_tokens"] > 0 and summary["completion_tokens"] > 0


def test_a_provider_that_keeps_failing_leaves_the_run_not_scored(stand_in, tmp_path):
    stand_in.fail(50, 500)
    base = stand_in.url.removesuffix("/v1")
    done = run(
        tmp_path,
        "--agent",
        "model:anthropic/claude-stand-in",
        "--base-url",
        base,
        "--task",
        "refund-double-charge",
        "--model-retries",
        "1",
    )
    stand_in._failures.clear()
    data = json.loads(done.stdout)
    (task_run,) = data["task_runs"]
    assert task_run["outcome"] == "not_scored"
    assert "model provider failed: 500" in json.dumps(task_run)


def test_without_litellm_a_provider_name_says_what_to_install(monkeypatch):
    from assay import litellm_provider
    from assay.errors import UsageError

    monkeypatch.setattr(litellm_provider, "find_spec", lambda name: None)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(UsageError, match=r"assay\[providers\]"):
        litellm_provider.routes_through_litellm("anthropic/claude", None, "--agent model:…")
    # With a base URL the name is an OpenAI-compatible server's own model id, as before.
    assert not litellm_provider.routes_through_litellm("meta/llama", "http://x/v1", "--agent")


def test_names_that_are_not_a_providers_stay_on_the_openai_sdk():
    from assay.litellm_provider import routes_through_litellm

    for name in ("gpt-4o", "openai/gpt-oss-20b", "my-org/my-model"):
        assert not routes_through_litellm(name, "http://x/v1", "--agent")
    assert routes_through_litellm("anthropic/claude", None, "--agent")
