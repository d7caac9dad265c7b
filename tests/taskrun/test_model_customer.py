"""`--customer model:<name>`: a model answers for the customer; requests and changes stay scripted."""

from __future__ import annotations

from modelkit import StandIn
from settingskit import use_model_at, use_settings

from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.taskrun.agents.scripted import ActionsAgent
from assay.taskrun.model_customer import SATISFIED

TASK = "refund-double-charge"


def said(shop, stand_in, monkeypatch, *texts):
    use_model_at(monkeypatch, stand_in.url)
    use_settings(monkeypatch, customer_model="customer-1")
    task = shop.tasks[TASK]
    agent = ActionsAgent([{"say": text} for text in texts])
    return run_task(shop, task, agent, run_id=new_id("tr"))


def replies(result):
    return [
        event["text"]
        for step in result.trajectory["steps"][1:]
        for event in step["events"]
        if event.get("from") == "customer"
    ]


def test_the_model_answers_for_the_customer_from_the_task(shop, monkeypatch):
    with StandIn(lambda body: {"content": "Order A-1042, the second charge."}) as stand_in:
        result = said(shop, stand_in, monkeypatch, "Which order and charge?")
    assert replies(result) == ["Order A-1042, the second charge."]
    system, first = stand_in.bodies[0]["messages"][:2]
    assert shop.tasks[TASK].customer.request in system["content"]
    assert first == {"role": "user", "content": "Which order and charge?"}
    assert stand_in.bodies[0]["model"] == "customer-1"


def test_the_customer_says_when_it_is_satisfied_and_the_mark_is_not_shown(shop, monkeypatch):
    with StandIn(lambda body: {"content": f"Great, thanks! {SATISFIED}"}) as stand_in:
        result = said(shop, stand_in, monkeypatch, "Refunded the duplicate charge.")
    assert replies(result) == ["Great, thanks!"]


def test_a_customer_model_that_fails_ends_the_run_not_scored(shop, monkeypatch):
    with StandIn(lambda body: {"content": "x"}) as stand_in:
        stand_in.fail(3, 500)
        result = said(shop, stand_in, monkeypatch, "Hello?")
    assert result.outcome == "not_scored"
    assert result.error.side == "world"
    assert "the customer's model provider failed" in result.error.message


def test_without_the_option_the_scripted_customer_answers(shop, monkeypatch):
    use_settings(monkeypatch, customer_model=None)
    task = shop.tasks[TASK]
    result = run_task(shop, task, ActionsAgent([{"say": "hello"}]), run_id=new_id("tr"))
    assert replies(result) == [task.customer.default_reply]


def test_scripted_changes_still_arrive_with_a_model_customer(shop, monkeypatch):
    use_settings(monkeypatch, customer_model="customer-1")
    with StandIn(lambda body: {"content": "unused"}) as stand_in:
        use_model_at(monkeypatch, stand_in.url)
        task = shop.tasks["address-correction"]
        agent = ActionsAgent([{"call": {"tool": "find_order", "args": {"order_id": "B-2001"}}}])
        result = run_task(shop, task, agent, run_id=new_id("tr"))
    assert "Sorry, wrong number: it's 7 Dock St, Hull." in replies(result)
    assert stand_in.bodies == []  # nobody spoke to the customer: the model was never asked


def test_the_customers_model_calls_and_tokens_are_in_the_run_usage(shop, monkeypatch):
    """They were not counted: only an agent's model calls reached the summary."""
    with StandIn(lambda body: {"content": "Order A-1042."}) as stand_in:
        result = said(shop, stand_in, monkeypatch, "Which order?", "And the charge?")
    assert result.summary.model_calls == 2
    assert result.summary.prompt_tokens == stand_in.served_tokens[0] > 0
    assert result.summary.completion_tokens == stand_in.served_tokens[1] == 20


def test_without_the_sdk_a_model_customer_names_its_option(shop, monkeypatch, capsys):
    """It was reported as `--agent model:` inside 'the world could not be reset'."""
    import sys

    import pytest

    from assay.cli.app import run_app

    monkeypatch.setitem(sys.modules, "openai", None)  # as if the package were not installed
    argv = ["assay", "run", str(shop.world.root), "--task", TASK, "--customer", "model:c-1"]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as done:
        run_app()
    err = capsys.readouterr().err
    assert (done.value.code, err.count("\n")) == (2, 1), err
    assert err == (
        "error: --customer model:…: the openai package is missing; pip install 'assay[model]'\n"
    )
