"""A Python class agent runs in a process of its own: it sees observations and sends actions, and
whatever it does there fails only its own task run."""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from pathlib import Path

import pytest

from assay import UsageError
from assay.runs import run_task
from assay.taskrun.agents import IsolatedAgents, agent_factory, close_agents

AGENTS = Path(__file__).with_name("isolation_agents.py")


def isolated(name: str, **options) -> IsolatedAgents:
    factory = agent_factory(f"{AGENTS}:{name}", **options)
    assert isinstance(factory, IsolatedAgents)
    return factory


def run(desk, factory, task_id="basic"):
    task = desk.tasks[task_id]
    return run_task(desk, task, factory(task), run_id="tr_test", agent_name="test")


@pytest.fixture
def agents():
    """`agents(name, ...)`: a class agent's factory, its process stopped after the test."""
    made = []

    def make(name: str, **options) -> IsolatedAgents:
        made.append(isolated(name, **options))
        return made[-1]

    yield make
    for factory in made:
        close_agents(factory)


def test_a_forging_agent_in_process_writes_the_goal_row(desk):
    spec = importlib.util.spec_from_file_location("isolation_agents", AGENTS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = run(desk, lambda task: module.Forger())  # the same class, handed over as an object
    assert result.outcome == "verified", (
        result.error
    )  # which is why --agent never runs user code in-process


def test_a_forging_agent_out_of_process_finds_no_world(desk, agents):
    result = run(desk, agents("Forger"))
    assert result.output == "found 0 connections"
    assert result.outcome == "not_achieved"
    goal = result.checks[0]
    assert (goal.passed, goal.evidence["actual"]) == (False, 0)


def test_observations_and_actions_cross_as_json(desk, agents):
    result = run(desk, agents("Polite"))
    assert result.outcome == "verified"
    assert result.output == "done: {'id': 3, 'pinned': False}"


def test_where_the_world_and_records_live_is_not_passed_on(desk, agents, monkeypatch):
    monkeypatch.setenv("ASSAY_STORE", "sqlite:///secret.db")
    monkeypatch.setenv("ASSAY_WORLD_DB", "postgresql://postgres@127.0.0.1/postgres")
    result = run(desk, agents("Where"))
    seen, pid = result.output.rsplit(" ", 1)
    assert seen == "{'ASSAY_WORLD_DB': None, 'ASSAY_STORE': None}"
    assert int(pid) != os.getpid()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("InitRaises", "__init__ raised ValueError: no model configured"),
        ("Exits", "SystemExit: 5"),
        ("Interrupts", "KeyboardInterrupt"),
        ("Dies", "the agent's process ended (exit code 3)"),
        ("Circular", "returned an action that is not JSON: Circular reference detected"),
    ],
)
def test_an_agent_failing_in_its_process_fails_only_its_task_run(desk, agents, name, message):
    factory = agents(name)
    for _ in range(2):  # and the next task run gets an agent again (a new process if it died)
        result = run(desk, factory)
        assert result.outcome == "not_scored"
        assert (result.status, result.summary.termination) == ("failed", "agent_error")
        assert (result.error.side, result.error.message) == ("agent", message)


def test_a_stuck_agent_is_stopped_by_the_per_action_time_limit(desk, agents):
    factory = agents("Stuck", action_timeout_s=0.5)
    began = time.monotonic()
    result = run(desk, factory)
    assert time.monotonic() - began < 10
    assert result.outcome == "not_scored"
    assert result.error.side == "agent"
    assert result.error.message == (
        "no action within 0.5 s, the per-action time limit (--action-timeout); "
        "its process was stopped"
    )


def test_the_task_time_limit_still_times_out_and_scores(desk, agents):
    result = run(desk, agents("Stuck"), task_id="slow")  # time_limit_s = 0.3
    assert (result.status, result.summary.termination) == ("timed_out", "timeout")
    assert result.outcome == "not_achieved"


def test_a_class_that_cannot_be_used_is_bad_input_found_in_its_own_process(tmp_path):
    loud = tmp_path / "loud.py"
    loud.write_text("import sys\nsys.exit(3)\n")
    with pytest.raises(UsageError, match=rf"^--agent: cannot import {loud}: SystemExit: 3$"):
        agent_factory(f"{loud}:Agent")
    with pytest.raises(UsageError, match=r"is not a class with act\(observation\)$"):
        agent_factory(f"{AGENTS}:os")
    assert "loud" not in sys.modules  # imported in a child, never here


def test_an_in_process_agents_circular_action_is_the_agent_failing(desk):
    class Circular:
        def act(self, observation):
            args = {"text": "hello"}
            args["again"] = args
            return {"call": {"tool": "add_note", "args": args}}

    result = run(desk, lambda task: Circular())
    assert result.outcome == "not_scored"
    assert result.error.side == "agent"
    assert result.error.message.startswith("returned an invalid action: it is not JSON: Circular")
