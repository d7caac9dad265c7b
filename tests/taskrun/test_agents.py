"""Agents in-process: failures of the agent's own side, time limits, and the agent forms."""

from __future__ import annotations

import json
import time

import pytest

from assay import UsageError
from assay.runs import run_task
from assay.taskrun import agent_factory, call, finish
from assay.taskrun.agents import check_agent_for


class Raises:
    def act(self, observation):
        raise ConnectionError("model provider unreachable")


class Nonsense:
    def act(self, observation):
        return {"dance": True}


class Sleepy:
    def act(self, observation):
        time.sleep(1)
        return finish("late")


class Polite:
    """Uses the JSON form of actions and reads its observations."""

    def __init__(self):
        self.seen = []

    def act(self, observation):
        self.seen.append(observation)
        if observation.turn == 0:
            return {"call": {"tool": "add_note", "args": {"text": "hello"}}}
        return {"finish": "done"}


def run(desk, task_id, agent):
    return run_task(desk, desk.tasks[task_id], agent, run_id="tr_test", agent_name="test")


def test_an_agent_that_raises_is_not_scored(desk):
    result = run(desk, "basic", Raises())
    assert result.outcome == "not_scored"
    assert result.error.side == "agent"
    assert result.error.message == "ConnectionError: model provider unreachable"
    assert result.summary.termination == "agent_error"
    assert result.status == "failed"


def test_an_invalid_action_is_the_agent_failing(desk):
    result = run(desk, "basic", Nonsense())
    assert result.error.side == "agent"
    assert result.error.message.startswith("returned an invalid action:")


def test_a_time_limit_ends_the_run_and_checks_still_run(desk):
    result = run(desk, "slow", Sleepy())
    assert result.summary.termination == "timeout"
    assert result.status == "timed_out"
    assert result.outcome == "not_achieved"
    assert len(result.checks) == 1


def test_json_actions_and_typed_actions_are_the_same(desk):
    agent = Polite()
    result = run(desk, "basic", agent)
    assert result.outcome == "verified"
    assert agent.seen[1].events[0].result == {"id": 3, "pinned": False}
    assert call("add_note", text="hello").model_dump() == {
        "call": {"tool": "add_note", "args": {"text": "hello"}}
    }


def test_unknown_agent_names_are_refused():
    with pytest.raises(UsageError, match="--agent: unknown agent 'smart'"):
        agent_factory("smart")
    with pytest.raises(UsageError, match="--agent: cannot import nowhere_at_all"):
        agent_factory("nowhere_at_all:Agent")


def test_scripted_agents_need_their_script(shop):
    task = shop.tasks["refund-double-charge"]
    with pytest.raises(
        UsageError, match="has no wrong solution 'x' \\(it has: refunds both charges"
    ):
        check_agent_for("wrong:x", task)


def test_replay_repeats_a_trajectory_exactly(desk, tmp_path):
    first = run(desk, "basic", Polite())
    saved = tmp_path / "t.json"
    saved.write_text(json.dumps({"trajectory": first.trajectory}))
    replayed = run(desk, "basic", agent_factory(f"replay:{saved}")(desk.tasks["basic"]))
    assert replayed.trajectory == first.trajectory
    assert replayed.final_state_hash == first.final_state_hash
    with pytest.raises(UsageError, match="replays task basic, not held"):
        agent_factory(f"replay:{saved}")(desk.tasks["held"])


def test_replay_leaves_out_attempts_refused_as_no_action(tmp_path):
    from assay.taskrun.agents.replay import read_saved

    saved = tmp_path / "t.json"
    steps = [
        {"turn": 0, "events": [], "action": {"invalid": "{oops"}},
        {"turn": 1, "events": [], "action": {"say": "hi"}},
        {"turn": 2, "events": [], "action": None},
    ]
    saved.write_text(json.dumps({"trajectory": {"task_id": "basic", "steps": steps}}))
    replayed = read_saved(saved)
    assert (replayed.task_id, replayed.actions) == ("basic", [{"say": "hi"}])


def test_replay_of_a_file_that_is_not_a_trajectory(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(UsageError, match="is not a saved trajectory"):
        agent_factory(f"replay:{bad}")
    with pytest.raises(UsageError, match="cannot read"):
        agent_factory(f"replay:{tmp_path / 'missing.json'}")


# The database's own words for the seed's error.
NO_TABLE = {"sqlite": "no such table: nowhere", "postgresql": 'relation "nowhere" does not exist'}


def test_a_world_that_cannot_be_reset_is_not_scored(tmp_path, open_world, backend):
    from worldkit import write_world

    root = write_world(tmp_path, seed="INSERT INTO nowhere VALUES (1);")
    broken = open_world(root, build=False)
    task = broken.tasks["basic"]
    result = run_task(broken, task, agent_factory("reference")(task), run_id="tr_x")
    assert result.outcome == "not_scored"
    assert (result.status, result.summary.termination) == ("failed", "world_error")
    assert result.error.side == "world"
    assert result.error.message.startswith("the world could not be reset: ")
    assert result.error.message.endswith(f"seed.sql: seed failed: {NO_TABLE[backend]}")


def test_a_service_that_crashes_is_the_world_failing(tmp_path, open_world):
    from worldkit import DESK_WORLD, write_world

    root = write_world(
        tmp_path, world_toml=DESK_WORLD.replace('email = "email"', 'email = "crash.py:Crash"')
    )
    (root / "crash.py").write_text(
        "from assay import Service\n\nclass Crash(Service):\n    kind = 'crash'\n\n    def handle(self, operation, payload):\n        return 1 / 0\n"
    )
    benchmark = open_world(root)
    task = benchmark.tasks["basic"]
    result = run_task(benchmark, task, _Notify(), run_id="tr_x")
    assert result.outcome == "not_scored"
    assert result.error.side == "world"
    assert (
        result.error.message
        == "service email (crash) crashed on send: ZeroDivisionError('division by zero')"
    )


class _Notify:
    def act(self, observation):
        return call("notify", to="a@example.com", body="hi")


def test_a_script_is_parsed_once_and_again_when_its_list_changes():
    """The reference agent is built for every task run from the same steps; a list changed in
    place gives the new actions."""
    from assay.formats.task import Step
    from assay.taskrun.actions import say
    from assay.taskrun.agents.scripted import ScriptedAgent

    steps = [Step(call="add_note", args={"text": "a"}), Step(finish="done")]
    first, second = ScriptedAgent(steps), ScriptedAgent(steps)
    assert [first.act(None), first.act(None), first.act(None)] == [
        call("add_note", text="a"),
        finish("done"),
        finish(""),
    ]
    assert second.act(None) is ScriptedAgent(steps).act(None)  # the same frozen action
    steps[1] = Step(say="hello?")
    changed = ScriptedAgent(steps)
    assert [changed.act(None), changed.act(None)] == [call("add_note", text="a"), say("hello?")]
    steps.append(Step(finish="bye"))
    assert ScriptedAgent(steps)._actions[-1] == finish("bye")
