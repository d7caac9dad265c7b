"""Differences between two records, check by check."""

from __future__ import annotations

from assay.trust.diff import differences


def record(*checks, **fields):
    return {"outcome": "verified", "checks": list(checks), **fields}


def test_equal_records_have_no_differences():
    check = {"name": "a", "passed": True}
    assert differences(record(check), record(dict(check))) == []


def test_checks_are_matched_by_name_not_position():
    a, b = {"name": "a", "passed": True}, {"name": "b", "passed": False}
    assert differences(record(a, b), record(b, a)) == ["the checks ran in another order"]


def test_added_removed_and_changed_checks():
    old = record({"name": "kept", "details": "0 of 2 moved"}, {"name": "gone"})
    new = record({"name": "kept", "details": "2 of 2 moved"}, {"name": "new"})
    assert differences(old, new) == [
        "check 'gone' is gone",
        "check 'new' is new",
        'check \'kept\': details: "0 of 2 moved" → "2 of 2 moved"',
    ]


def test_nested_fields_are_named_by_path_and_long_values_cut():
    old = record(summary={"turns": 2}, final_state_hash="a" * 100)
    new = record(summary={"turns": 3}, final_state_hash="b" * 100)
    lines = differences(old, new)
    assert lines[1] == "summary.turns: 2 → 3"
    assert lines[0].startswith('final_state_hash: "aaaa')
    assert lines[0].count("…") == 2
    assert len(lines[0]) < 200


def test_checks_sharing_a_name_stay_apart():
    old = record({"name": "a", "passed": True}, {"name": "a", "passed": True})
    new = record({"name": "a", "passed": True}, {"name": "a", "passed": False})
    assert differences(old, new) == ["check 'a #1': passed: true → false"]


def test_lists_of_one_length_are_compared_item_by_item():
    old = record({"name": "v", "evidence": {"checks": [{"passed": True}, {"passed": True}]}})
    new = record({"name": "v", "evidence": {"checks": [{"passed": True}, {"passed": False}]}})
    assert differences(old, new) == ["check 'v': evidence.checks[1].passed: true → false"]


def test_lists_of_another_length_are_compared_whole():
    old = record(rows=[[1], [2]])
    new = record(rows=[[1]])
    assert differences(old, new) == ["rows: [[1], [2]] → [[1]]"]


def test_a_field_added_since_the_record_at_its_empty_value_is_no_change():
    from assay.trust.diff import differences

    old = {"summary": {"turns": 2}}
    assert differences(old, {"summary": {"turns": 2, "model_calls": 0, "note": None}}) == []
    assert differences(old, {"summary": {"turns": 2, "model_calls": 3}}) == [
        "summary.model_calls: null → 3"
    ]


def test_two_long_values_are_shown_where_they_first_differ():
    tail = "=" * 30 + " 4 passed in {}s " + "=" * 30
    old = record(text="collected 4 items\n" * 20 + tail.format("0.80"))
    new = record(text="collected 4 items\n" * 20 + tail.format("0.63"))
    (line,) = differences(old, new)
    before, after = line.removeprefix("text: ").split(" → ")
    assert "0.80s" in before and "0.63s" in after
    assert before.startswith("…") and after.startswith("…")
    assert " (first difference at character " in line
