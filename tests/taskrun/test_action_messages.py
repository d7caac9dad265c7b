"""A bad action says what is wrong with it: the field and the type wanted, or the unknown key."""

from __future__ import annotations

import pytest

from assay.taskrun.actions import Call, Finish, InvalidAction, Say, parse_action

ONE_OF = 'an action is one of {"call": {"tool": ..., "args": {...}}}, {"say": ...}, {"finish": ...}'

REFUSED = [
    ({"finish": 5}, "invalid action: finish must be a string"),
    ({"finish": None}, "invalid action: finish must be a string"),
    ({"say": None}, "invalid action: say must be a string"),
    ({"say": ["hi"]}, "invalid action: say must be a string"),
    ({"jump": 1}, f"invalid action: unknown action 'jump'; {ONE_OF}"),
    ({"call": "refund"}, 'invalid action: call must be an object {"tool": ..., "args": {...}}'),
    ({"call": {}}, "invalid action: call.tool is required"),
    ({"call": {"tool": 5}}, "invalid action: call.tool must be a string"),
    ({"call": {"tool": "t", "args": [1]}}, "invalid action: call.args must be an object"),
    ({"call": {"tool": "t", "arg": {}}}, "invalid action: call.arg: unknown key"),
    ({}, ONE_OF),
    ({"say": "a", "finish": "b"}, ONE_OF),
    ("finish", ONE_OF),
    (None, ONE_OF),
]


@pytest.mark.parametrize(("value", "message"), REFUSED)
def test_a_bad_action_names_what_is_wrong(value, message):
    with pytest.raises(InvalidAction) as refused:
        parse_action(value)
    assert str(refused.value) == message


def test_good_actions_parse():
    assert parse_action({"finish": "done"}) == Finish(finish="done")
    assert parse_action({"say": "hello"}) == Say(say="hello")
    parsed = parse_action({"call": {"tool": "t", "args": {"a": 1}}})
    assert isinstance(parsed, Call) and parsed.call.args == {"a": 1}
