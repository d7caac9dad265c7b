"""`--agent` text is parsed in one place: its kind, its argument, and what each kind implies for
the run (scripted, asks a model, runs in a process of its own)."""

from __future__ import annotations

import pytest

from assay import UsageError
from assay.taskrun.agents import agent_factory
from assay.taskrun.agents.names import parse_agent

# text → (kind, argument, scripted, uses a model, in a process of its own)
CASES = {
    "noop": ("noop", "", True, False, False),
    "reference": ("reference", "", True, False, False),
    "oracle": ("reference", "", True, False, False),
    "wrong:skips the refund": ("wrong", "skips the refund", True, False, False),
    "replay:runs/saved": ("replay", "runs/saved", True, False, False),
    "replay:run:br_1": ("replay", "run:br_1", True, False, False),
    "model:openai/gpt-4o": ("model", "openai/gpt-4o", False, True, False),
    "cli:claude-code:sonnet": ("cli", "claude-code:sonnet", False, True, False),
    "my_agents.shop:Agent": ("class", "my_agents.shop:Agent", False, False, True),
    "agents/shop.py:Agent": ("class", "agents/shop.py:Agent", False, False, True),
    "texter": ("installed", "texter", False, False, True),
}


@pytest.mark.parametrize("text", CASES)
def test_each_form_of_agent_text_parses_to_its_kind(text):
    named = parse_agent(text)
    assert (named.kind, named.argument, named.scripted, named.uses_model, named.own_process) == (
        CASES[text]
    )


def test_only_a_model_agent_names_a_model():
    assert parse_agent("model:gpt-4o").model == "gpt-4o"
    assert [parse_agent(text).model for text in ("reference", "sdk", "mcp:claude", "cli:x")] == [
        None
    ] * 4


def test_an_agent_no_package_installs_is_refused_naming_the_forms():
    with pytest.raises(UsageError, match=r"^--agent: unknown agent 'smart'; use noop, reference"):
        agent_factory("smart")
