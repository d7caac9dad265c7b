"""Requests that change, faults, unknown outcomes, retry_operation and duplicates."""

from __future__ import annotations

import assay
from assay.taskrun.observation import FAILED_MESSAGE, HELD_MESSAGE, UNKNOWN_MESSAGE


def events(observation):
    return [event.model_dump(by_alias=True, exclude_none=True) for event in observation.events]


def count(run, sql):
    run.session.live.flush()
    return run.session.live.db.value(sql)


def test_first_write_is_held_and_the_change_arrives(desk):
    with assay.open(desk, "held") as run:
        assert events(run.call("read_notes"))[0]["status"] == "OK"  # reads are not held
        held, message = events(run.call("add_note", text="hello"))
        assert held == {
            "type": "tool_result",
            "tool": "add_note",
            "status": "HELD",
            "operation_id": "op-1",
            "message": HELD_MESSAGE,
        }
        assert HELD_MESSAGE == "A new message from the customer arrived before this change was made"
        assert message == {"type": "message", "from": "customer", "text": "Sorry, make it goodbye."}
        assert count(run, "SELECT count(*) FROM notes WHERE text = 'hello'") == 0
        assert count(run, "SELECT status FROM sandbox_actions WHERE tool = 'add_note'") == "HELD"
        assert (
            events(run.call("add_note", text="goodbye"))[0]["status"] == "OK"
        )  # only the first write is held
        result = run.finish("done")
    assert result.outcome == "verified"


def test_doing_the_first_request_after_the_change_fails(desk):
    with assay.open(desk, "held") as run:
        run.call("add_note", text="hello")
        run.call("add_note", text="hello")
        result = run.finish("done")
    assert result.outcome == "rule_violated"


def test_change_after_turn_n(desk):
    with assay.open(desk, "turn-change") as run:
        assert [e["type"] for e in events(run.call("read_notes"))] == ["tool_result"]
        second = events(run.call("read_notes"))
        assert second[-1] == {"type": "message", "from": "customer", "text": "Make it goodbye."}
        assert [e["type"] for e in events(run.call("read_notes"))] == ["tool_result"]


def test_change_after_a_tool_lets_the_write_stand(desk):
    with assay.open(desk, "after-change") as run:
        refused = events(run.call("add_then_refuse", text="x"))  # not a success: no change yet
        assert [e["type"] for e in refused] == ["tool_result"]
        result, message = events(run.call("add_note", text="hello"))
        assert result["status"] == "OK"
        assert message["text"] == "Also email me@example.com."
        assert count(run, "SELECT count(*) FROM notes WHERE text = 'hello'") == 1
        assert len(events(run.call("add_note", text="again"))) == 1  # a change arrives once


def test_unknown_outcome_happens_but_the_agent_is_not_told(desk):
    with assay.open(desk, "faults") as run:
        (seen,) = events(run.call("add_note", text="hello"))
        assert seen == {
            "type": "tool_result",
            "tool": "add_note",
            "status": "UNKNOWN",
            "operation_id": "op-1",
            "message": UNKNOWN_MESSAGE,
        }
        assert UNKNOWN_MESSAGE == "request timed out; the outcome is unknown"
        assert count(run, "SELECT count(*) FROM notes WHERE text = 'hello'") == 1
        assert (
            count(run, "SELECT status FROM sandbox_actions WHERE operation_id = 'op-1'")
            == "UNKNOWN"
        )


def test_failed_call_is_not_carried_out(desk):
    with assay.open(desk, "faults") as run:
        run.call("add_note", text="hello")
        (seen,) = events(run.call("add_note", text="later"))
        assert seen == {
            "type": "tool_result",
            "tool": "add_note",
            "status": "FAILED",
            "operation_id": "op-2",
            "message": FAILED_MESSAGE,
        }
        assert count(run, "SELECT count(*) FROM notes WHERE text = 'later'") == 0
        assert (
            events(run.call("add_note", text="third"))[0]["status"] == "OK"
        )  # the third call has no fault
        result = run.finish("done")
    assert result.summary.faults == 2


def test_retry_of_a_write_that_happened_is_not_repeated(desk):
    with assay.open(desk, "faults") as run:
        run.call("add_note", text="hello")
        (retried,) = events(run.call("retry_operation", operation_id="op-1"))
        assert retried["status"] == "OK"
        assert retried["result"] == {"id": 3, "pinned": False}
        assert (
            retried["message"] == "already carried out; this is its original result, not repeated"
        )
        assert count(run, "SELECT count(*) FROM notes WHERE text = 'hello'") == 1
        result = run.finish("done")
    assert result.outcome == "verified"
    assert (result.summary.faults, result.summary.recovered, result.summary.duplicate_effects) == (
        1,
        True,
        0,
    )


def test_retry_of_a_failed_write_carries_it_out_now(desk):
    with assay.open(desk, "faults") as run:
        run.call("add_note", text="hello")
        run.call("add_note", text="later")
        (retried,) = events(run.call("retry_operation", operation_id="op-2"))
        assert (retried["status"], retried["message"]) == ("OK", "carried out now")
        assert count(run, "SELECT count(*) FROM notes WHERE text = 'later'") == 1
        again = events(run.call("retry_operation", operation_id="op-2"))[0]
        assert again["message"].startswith("already carried out")
        assert count(run, "SELECT count(*) FROM notes WHERE text = 'later'") == 1


def test_retry_of_an_unknown_id_is_a_tool_error(desk):
    with assay.open(desk, "faults") as run:
        (seen,) = events(run.call("retry_operation", operation_id="op-9"))
        result = run.finish("")
    assert (seen["status"], seen["code"], seen["message"]) == (
        "ERROR",
        "unknown_operation",
        "no operation op-9 in this task run",
    )
    assert result.summary.rejected_attempts == 0


def test_repeating_a_write_after_an_unknown_outcome_is_a_duplicate(desk):
    with assay.open(desk, "email-fault") as run:
        run.call("notify", to="me@example.com", body="hi")
        run.call("notify", to="me@example.com", body="hi")
        assert count(run, "SELECT duplicate_of FROM sandbox_requests WHERE id = 2") == 1
        result = run.finish("sent")
    assert result.summary.duplicate_effects == 1
    assert result.summary.recovered is False
    assert result.outcome == "not_achieved"
