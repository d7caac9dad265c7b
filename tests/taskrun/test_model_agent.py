"""A chat model as the agent, against a local stand-in that speaks the Chat Completions API."""

from __future__ import annotations

import pytest
from modelkit import ScriptedModel, StandIn, solutions_model

from assay.provider import ModelOptions, make_client
from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.taskrun.agents.model import ModelAgent

TASK = "refund-double-charge"


def model_run(shop, stand_in, task_id=TASK, retries=0):
    task = shop.tasks[task_id]
    options = ModelOptions(base_url=stand_in.url, retries=retries, timeout_s=5)
    agent = ModelAgent("stand-in", options, make_client(options))
    return run_task(shop, task, agent, run_id=new_id("tr"), agent_name="model:stand-in")


@pytest.fixture
def scripted(shop):
    return solutions_model(shop.tasks.values())


def test_the_reference_solution_played_by_a_model_is_verified(shop, scripted):
    with StandIn(scripted) as stand_in:
        result = model_run(shop, stand_in)
    assert result.outcome == "verified"
    first = stand_in.bodies[0]
    assert first["messages"][0]["role"] == "system"
    assert "The time now is 2026-03-02T09:00:00Z" in first["messages"][0]["content"]
    assert first["messages"][1] == {"role": "user", "content": shop.tasks[TASK].customer.request}
    names = [tool["function"]["name"] for tool in first["tools"]]
    assert names[-1] == "finish" and "refund_payment" in names


def test_usage_is_counted_per_task_run_and_the_transcript_kept(shop, scripted):
    with StandIn(scripted) as stand_in:
        result = model_run(shop, stand_in)
    summary = result.summary
    assert summary.model_calls == len(stand_in.bodies)
    assert (summary.prompt_tokens, summary.completion_tokens) == tuple(stand_in.served_tokens)
    assert summary.model_latency_s > 0
    transcript = result.trajectory["transcript"]
    assert transcript[0]["role"] == "system"
    assert [m["role"] for m in transcript].count("assistant") == summary.model_calls


def test_a_malformed_tool_call_is_a_rejected_attempt_the_model_sees(shop):
    replies = [{"calls": [("find_order", "{not json")]}, {"calls": [("finish", {"output": "x"})]}]
    request = shop.tasks[TASK].customer.request
    with StandIn(ScriptedModel({request: replies})) as stand_in:
        result = model_run(shop, stand_in)
    assert result.summary.rejected_attempts == 1
    seen = stand_in.bodies[1]["messages"][-1]
    assert seen["role"] == "tool" and '"status": "REJECTED"' in seen["content"]


def test_a_reply_without_a_tool_call_is_said_to_the_customer(shop):
    replies = [{"content": "Which order do you mean?"}, {"calls": [("finish", {"output": "x"})]}]
    task = shop.tasks[TASK]
    with StandIn(ScriptedModel({task.customer.request: replies})) as stand_in:
        result = model_run(shop, stand_in)
    assert stand_in.bodies[1]["messages"][-1]["role"] == "user"  # the customer's answer
    assert result.trajectory["steps"][0]["action"] == {"say": "Which order do you mean?"}


def test_provider_failures_are_retried_then_the_run_goes_on(shop, scripted):
    with StandIn(scripted) as stand_in:
        stand_in.fail(2, 429)
        result = model_run(shop, stand_in, retries=2)
    assert result.outcome == "verified"
    assert len(stand_in.bodies) == result.summary.model_calls + 2


def test_a_provider_that_keeps_failing_makes_the_run_not_scored(shop, scripted):
    with StandIn(scripted) as stand_in:
        stand_in.fail(10, 500)
        result = model_run(shop, stand_in, retries=1)
    assert result.outcome == "not_scored"
    assert result.error is not None and result.error.side == "agent"
    assert result.error.message.startswith("model provider failed: 500")
    assert len(stand_in.bodies) == 2  # the first try and one retry


def test_a_provider_that_times_out_makes_the_run_not_scored(shop, scripted):
    task = shop.tasks[TASK]
    with StandIn(scripted, latency_s=1.0) as stand_in:
        options = ModelOptions(base_url=stand_in.url, retries=0, timeout_s=0.2)
        agent = ModelAgent("stand-in", options, make_client(options))
        result = run_task(shop, task, agent, run_id=new_id("tr"))
    assert result.outcome == "not_scored"
    assert result.error.message.startswith("model provider failed: APITimeoutError")
