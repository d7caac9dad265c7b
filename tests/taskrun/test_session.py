"""The loop as an agent sees it: observations, replies, rejections, turns and failures."""

from __future__ import annotations

import json

import assay


def events(observation):
    return [event.model_dump(by_alias=True, exclude_none=True) for event in observation.events]


def actions(run):
    run.session.live.flush()
    return run.session.live.db.rows(
        "SELECT turn, kind, tool, args, status, operation_id FROM sandbox_actions ORDER BY id"
    )


def test_first_observation(desk):
    with assay.open(desk, "basic") as run:
        first = run.observation
        assert (first.task_id, first.role, first.turn, first.turns_left, first.done) == (
            "basic",
            "desk",
            0,
            5,
            False,
        )
        assert first.request == "Please add a note saying hello."
        assert events(first) == [
            {"type": "message", "from": "customer", "text": "Please add a note saying hello."}
        ]
        names = [t["name"] for t in first.tools]
        assert names == [
            "read_notes",
            "add_note",
            "add_then_refuse",
            "explode",
            "notify",
            "stamp",
            "bad_result",
            "retry_operation",
        ]
        add_note = first.tools[1]
        assert add_note["writes"] is True
        assert add_note["parameters"]["required"] == ["text"]


def test_tool_result_and_finish(desk):
    with assay.open(desk, "basic") as run:
        seen = run.call("add_note", text="hello")
        assert events(seen) == [
            {
                "type": "tool_result",
                "tool": "add_note",
                "status": "OK",
                "operation_id": "op-1",
                "result": {"id": 3, "pinned": False},
            }
        ]
        assert (seen.turn, seen.turns_left) == (1, 4)
        result = run.finish("done")
    assert result.outcome == "verified"
    assert result.summary.termination == "finished"
    assert result.summary.turns == 2
    assert result.output == "done"


def test_customer_replies_with_the_first_match_in_any_case(desk):
    with assay.open(desk, "basic") as run:
        assert events(run.say("What EMAIL should I use?"))[0]["text"] == "me@example.com"
        assert events(run.say("Which address?"))[0]["text"] == "me@example.com"
        assert events(run.say("Anything else?"))[0]["text"] == "Just add it."
        assert run.session.customer.contacts == 3


def test_sandbox_actions_record_every_action(desk):
    with assay.open(desk, "basic") as run:
        run.say("hi")
        run.call("add_note", text="hello")
        run.call("admin_only")
        run.finish("done")
        rows = actions(run)
    assert [(r["turn"], r["kind"], r["tool"], r["status"], r["operation_id"]) for r in rows] == [
        (1, "say", None, "OK", None),
        (2, "call", "add_note", "OK", "op-1"),
        (3, "call", "admin_only", "REJECTED", None),
        (4, "finish", None, "OK", None),
    ]
    assert json.loads(rows[1]["args"]) == {"pinned": False, "text": "hello"}


def test_rejected_attempts_say_why(desk):
    with assay.open(desk, "basic") as run:
        lacks = events(run.call("admin_only"))[0]
        unknown = events(run.call("fly"))[0]
        invalid = events(run.call("add_note", txt="hello"))[0]
        result = run.finish("")
    assert (lacks["status"], lacks["code"], lacks["message"]) == (
        "REJECTED",
        "not_allowed",
        "the desk role cannot call admin_only",
    )
    assert (unknown["code"], unknown["message"]) == ("unknown_tool", "there is no tool named 'fly'")
    assert invalid["code"] == "invalid_arguments"
    assert "text: field required" in invalid["message"]
    assert "txt: unknown argument" in invalid["message"]
    assert result.summary.rejected_attempts == 3


def test_what_is_no_action_is_a_rejected_attempt_that_takes_a_turn(desk):
    with assay.open(desk, "basic") as run:
        seen = run.session.reject("{not json", "the action is not JSON")
        assert (seen.turn, seen.done) == (1, False)
        assert events(seen) == [
            {
                "type": "notice",
                "status": "REJECTED",
                "code": "invalid_action",
                "message": "the action is not JSON",
            }
        ]
        rows = actions(run)
        for _ in range(4):
            last = run.session.reject("?", "no")
        result = run.grade()
    assert [(r["turn"], r["kind"], r["status"]) for r in rows] == [(1, "invalid", "REJECTED")]
    assert json.loads(rows[0]["args"]) == {"text": "{not json"}
    assert last.done is True
    assert (result.summary.termination, result.summary.rejected_attempts) == ("max_turns", 5)
    assert result.trajectory["steps"][0]["action"] == {"invalid": "{not json"}


def test_a_tool_error_is_not_a_rejection_and_undoes_its_writes(desk):
    with assay.open(desk, "basic") as run:
        seen = events(run.call("add_then_refuse", text="kept?"))[0]
        assert (seen["status"], seen["code"], seen["message"]) == (
            "ERROR",
            "refused",
            "will not keep 'kept?'",
        )
        db = run.session.live.db
        assert db.value("SELECT count(*) FROM notes WHERE text = 'kept?'") == 0
        result = run.finish("")
        # the outside service did receive the request, so it stays on record
        assert db.value("SELECT count(*) FROM sandbox_requests WHERE operation = 'attempt'") == 1
    assert result.summary.rejected_attempts == 0


def test_max_turns_ends_the_run_and_checks_still_run(desk):
    with assay.open(desk, "basic") as run:
        for _ in range(4):
            run.call("read_notes")
        last = run.call("add_note", text="hello")
        assert last.done is True
        result = run.grade()
    assert result.summary.termination == "max_turns"
    assert result.summary.turns == 5
    assert result.outcome == "verified"
    assert result.summary.false_completion is False


def test_world_failure_is_not_scored(desk):
    with assay.open(desk, "basic") as run:
        last = run.call("explode")
        assert last.done
        assert events(last)[0]["text"] == "the world failed: tool explode raised RuntimeError: boom"
        result = run.grade()
    assert result.outcome == "not_scored"
    assert (result.reward, result.score, result.verdict, result.status) == (
        None,
        None,
        None,
        "failed",
    )
    assert result.error.side == "world"
    assert result.error.message == "tool explode raised RuntimeError: boom"
    assert result.summary.termination == "world_error"


def test_a_result_json_cannot_carry_is_a_world_failure(desk):
    with assay.open(desk, "basic") as run:
        run.call("bad_result")
        result = run.grade()
    assert result.error.side == "world"
    assert "returned a value that is not JSON" in result.error.message


def test_clock_moves_one_step_per_turn(desk):
    with assay.open(desk, "basic") as run:
        run.say("hi")
        stamp = events(run.call("stamp"))[0]["result"]["at"]
    assert stamp == "2026-03-02T09:02:00+00:00"


def test_unnecessary_interruptions_count_contacts_beyond_the_limit(desk):
    with assay.open(desk, "contacts") as run:
        for _ in range(3):
            run.say("Are you sure?")
        run.call("add_note", text="x")
        result = run.finish("done")
    assert result.summary.unnecessary_interruptions == 2
    assert result.outcome == "verified"


def test_ending_unfinished_grades_as_cancelled(desk):
    with assay.open(desk, "basic") as run:
        run.call("add_note", text="hello")
    assert run.result.summary.termination == "cancelled"
    assert run.result.status == "cancelled"
    assert run.result.outcome == "verified"


def test_false_completion_when_it_says_done_and_a_goal_failed(desk):
    with assay.open(desk, "basic") as run:
        result = run.finish("done")
    assert result.summary.false_completion is True
    assert result.outcome == "not_achieved"


def test_tools_see_which_database_they_write(desk, backend):
    with assay.open(desk, "basic") as run:
        assert run.session.live.db.backend == backend


def test_open_by_directory_lets_go_of_the_world_at_the_end(tmp_path, world_db, monkeypatch):
    from worldkit import write_world

    if world_db is not None:
        monkeypatch.setenv("ASSAY_WORLD_DB", world_db)
    with assay.open(write_world(tmp_path), "basic") as run:
        run.call("add_note", text="hello")
        result = run.finish("done")
        assert "initial" in vars(run.benchmark.world)  # the checks read the starting state
    assert result.outcome == "verified"
    assert "initial" not in vars(run.benchmark.world)  # closed with the task run


def test_the_trajectory_is_each_step_as_json_without_empty_fields():
    from assay.taskrun.observation import Event, customer_message
    from assay.taskrun.rollout import Rollout, Step

    steps = [
        Step(turn=0, events=[customer_message("hello")], action={"say": "hi", "note": None}),
        Step(
            turn=1,
            events=[
                Event(type="tool_result", tool="t", status="OK", result={"a": None, "b": [1]}),
                Event(type="notice", text="n", code=None),
            ],
            action={"call": {"tool": "t", "args": {"x": None}}},
        ),
        Step(turn=2, events=[], action=None),
    ]
    rollout = Rollout(
        task_id="t", termination="finished", turns=2, contacts=0, rejected_attempts=0, faults=0,
        output="", request="r", tools=[{"name": "t"}], steps=steps,
    )  # fmt: skip
    assert rollout.trajectory() == {
        "task_id": "t",
        "tools": [{"name": "t"}],
        "steps": [
            {
                "turn": 0,
                "events": [{"type": "message", "from": "customer", "text": "hello"}],
                "action": {"say": "hi", "note": None},
            },
            {
                "turn": 1,
                "events": [
                    {"type": "tool_result", "tool": "t", "status": "OK", "result": {"a": None, "b": [1]}},
                    {"type": "notice", "text": "n"},
                ],
                "action": {"call": {"tool": "t", "args": {"x": None}}},
            },
            {"turn": 2, "events": []},
        ],
    }  # fmt: skip
    each = [step.model_dump(mode="json", by_alias=True, exclude_none=True) for step in steps]
    assert rollout.trajectory()["steps"] == each


def test_an_ended_run_keeps_its_rollout_until_the_agent_fails_after_the_end(desk):
    with assay.open(desk, "basic") as run:
        session = run.session
        running = session.rollout()
        assert session.rollout() is not running  # built anew while the run goes on
        run.call("add_note", text="hello")
        assert session.rollout().turns == 1
        session.end("finished")
        ended = session.rollout()
        assert session.rollout() is ended
        assert (ended.termination, ended.turns, ended.error) == ("finished", 1, None)
        session.fail_agent("late")
        failed = session.rollout()
        assert (failed.termination, failed.error.side) == ("finished", "agent")
