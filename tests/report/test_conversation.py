"""The conversation a page shows: from a model's chat transcript, else from the steps."""

from __future__ import annotations

import json

from assay.report.conversation import conversation


def test_a_model_transcript_keeps_the_briefing_apart_and_marks_faults_and_holds():
    transcript = [
        {"role": "system", "content": "You are the support agent."},
        {"role": "user", "content": "Refund my order."},
        {
            "role": "assistant",
            "content": "Looking.",
            "tool_calls": [
                {"id": "c1", "function": {"name": "refund", "arguments": '{"order": "A-1"}'}}
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "c1",
            "content": json.dumps({"tool": "refund", "status": "UNKNOWN"}),
        },
        {
            "role": "tool",
            "tool_call_id": "c2",
            "content": json.dumps({"tool": "refund", "status": "HELD"}),
        },
        {"role": "user", "content": "[notice] the time is up soon"},
    ]
    turns = conversation({"transcript": transcript, "steps": []})
    assert [turn.kind for turn in turns] == [
        "briefing",
        "customer",
        "agent",
        "call",
        "result",
        "result",
        "notice",
    ]
    assert turns[3].who == "refund" and turns[3].value == {"order": "A-1"}
    assert [turns[4].mark, turns[5].mark] == ["fault", "hold"]
    assert turns[6].text == "the time is up soon"


def test_without_a_transcript_the_steps_make_the_conversation():
    steps = [
        {
            "turn": 0,
            "events": [{"type": "message", "from": "customer", "text": "Hi"}],
            "action": {"call": {"tool": "find", "args": {"id": 1}}},
        },
        {
            "turn": 1,
            "events": [
                {"type": "tool_result", "tool": "find", "status": "FAILED", "message": "down"}
            ],
            "action": {"finish": "Sorry."},
        },
    ]
    turns = conversation({"steps": steps})
    assert [(turn.kind, turn.who) for turn in turns] == [
        ("customer", "customer"),
        ("call", "find"),
        ("result", "find → FAILED"),
        ("agent", "agent · finish"),
    ]
    assert turns[2].mark == "fault"


def test_a_cli_agent_s_log_is_not_taken_for_chat_messages():
    assert conversation({"transcript": [{"type": "log"}], "steps": []}) == []
