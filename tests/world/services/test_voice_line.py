"""The voice line: a scripted IVR answering calls, digits and words; every turn recorded, on both
backends; and the voice-transcript check scoring what was said."""

from __future__ import annotations

import re

import pytest
from healthkit import tool_results, write_line_world

from assay.errors import SpecError
from assay.runs.handle import run_task
from assay.runs.plan import new_id
from assay.taskrun.agents.scripted import ActionsAgent

CALL = {"call": {"tool": "voice_call", "args": {"number": "+1-800-555-0100"}}}


def say(text):
    return {"call": {"tool": "voice_say", "args": {"call_id": "call-0001", "text": text}}}


@pytest.fixture
def line(tmp_path, open_world):
    return open_world(write_line_world(tmp_path / "line"))


def run(line, actions):
    task = line.tasks["eligibility"]
    return run_task(line, task, ActionsAgent(actions), run_id=new_id("tr"))


results = tool_results


GOOD = [
    CALL,
    {"call": {"tool": "voice_press", "args": {"call_id": "call-0001", "digits": "1"}}},
    say("The member ID is W123456789."),
    say("The date of birth is May 14, 1977. What is the copay?"),
    {"call": {"tool": "voice_hangup", "args": {"call_id": "call-0001"}}},
]


def test_the_line_answers_by_digits_and_words_and_records_every_turn(line):
    result = run(line, GOOD)
    answers = [event["result"].get("say") for event in results(result)]
    assert answers == [
        "Acme member services. For eligibility press 1 or say eligibility.",
        "Please say the member ID.",
        "Thank you. And the date of birth?",
        "The member is active on Gold PPO; the office copay is 25 dollars.",
        None,
    ]
    assert result.outcome == "verified"
    evidence = result.checks[0].evidence
    assert evidence["phrase_results"] == [
        {"phrase": "member ID", "found": True, "turn": 3},
        {"phrase": "date of birth", "found": True, "turn": 4},
        {"phrase": "copay | co-pay", "found": True, "turn": 4},
        {"phrase": "social security number", "found": False, "turn": None, "forbidden": True},
    ]


def test_a_forbidden_phrase_and_a_missing_one_lower_the_score(line):
    result = run(line, [CALL, say("What is the social security number?")])
    check = result.checks[0]
    assert (check.passed, check.score) == (False, 0.0)
    assert "✗ never said 'member ID'" in check.details
    assert "✗ said 'social security number' at turn 2" in check.details


def test_a_wrong_number_and_a_call_after_hangup_are_refused(line):
    wrong = {"call": {"tool": "voice_call", "args": {"number": "+1-800-000-0000"}}}
    hangup = {"call": {"tool": "voice_hangup", "args": {"call_id": "call-0001"}}}
    events = results(run(line, [wrong, CALL, hangup, say("hello?")]))
    assert [(event["status"], event.get("code")) for event in events] == [
        ("ERROR", "no_answer"),
        ("OK", None),
        ("OK", None),
        ("ERROR", "call_ended"),
    ]


def test_the_same_calls_leave_the_same_state(line):
    first, second = run(line, GOOD), run(line, GOOD)
    assert first.final_state_hash == second.final_state_hash
    assert first.final_state_hash != run(line, GOOD[:2]).final_state_hash


def test_the_line_hangs_up_on_its_farewell_phrases(tmp_path, open_world):
    root = write_line_world(tmp_path / "line")
    toml = root / "world.toml"
    farewell = (
        'hangup_on = [{ match = ["goodbye", "that is all"], say = "Thank you for calling." }]'
    )
    text = toml.read_text().replace("default_reply =", f"{farewell}\ndefault_reply =")
    toml.write_text(text)
    line = open_world(root)
    result = run(line, [CALL, say("That is all, goodbye!"), say("wait, one more thing")])
    farewell_event, after = results(result)[1:]
    assert farewell_event["result"] == {
        "call_id": "call-0001",
        "say": "Thank you for calling.",
        "ended": True,
    }
    assert (after["status"], after["code"]) == ("ERROR", "call_ended")


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        (', say = "Please say the member ID."', "", "menu[0]"),
        ('match = ["W123456789"], ', 'match = [""], ', "replies[0]"),
    ],
)
def test_a_bad_script_entry_names_world_toml_and_the_entry(tmp_path, open_world, old, new, where):
    root = write_line_world(tmp_path / "line")
    toml = root / "world.toml"
    text = toml.read_text().replace(old, new)
    assert text != toml.read_text()
    toml.write_text(text)
    with pytest.raises(SpecError, match=re.escape(f"world.toml: services.payer_line.{where}")):
        open_world(root)


def test_saying_the_same_thing_again_is_never_a_duplicate_effect(line):
    repeat = [CALL, *[say("Sorry, can you repeat that?")] * 4, say("eligibility")]
    result = run(line, [*repeat, CALL])
    assert result.summary.duplicate_effects == 1  # only the second call to the line


def test_with_two_lines_a_call_goes_by_number_and_then_by_call_id(tmp_path, open_world):
    from healthkit import write_line_world

    root = write_line_world(tmp_path / "two")
    world = (root / "world.toml").read_text()
    second = (
        '\n[services.patient_line]\nkind = "voice"\nnumber = "+1-212-555-0101"\n'
        'greeting = "Hello, this is Chidi."\nreplies = [{ match = ["appointment"], say = "Yes, I will come." }]\n'
    )
    (root / "world.toml").write_text(world.replace("[roles.billing]", second + "\n[roles.billing]"))
    task_file = root / "tasks" / "eligibility.toml"
    text = task_file.read_text()
    task_file.write_text(
        text.replace('speaker = "agent"', 'speaker = "agent"\nservice = "payer_line"')
    )
    two = open_world(root)
    actions = [
        CALL,
        {"call": {"tool": "voice_call", "args": {"number": "+1-212-555-0101"}}},
        {
            "call": {
                "tool": "voice_say",
                "args": {"call_id": "call-0002", "text": "About your appointment"},
            }
        },
        {"call": {"tool": "voice_say", "args": {"call_id": "call-0001", "text": "W123456789"}}},
    ]
    task = two.tasks["eligibility"]
    events = results(run_task(two, task, ActionsAgent(actions), run_id=new_id("tr")))
    assert [event["result"]["say"] for event in events] == [
        "Acme member services. For eligibility press 1 or say eligibility.",
        "Hello, this is Chidi.",
        "Yes, I will come.",
        "Thank you. And the date of birth?",
    ]
    assert [event["result"]["call_id"] for event in events[:2]] == ["call-0001", "call-0002"]
