"""Answer checks: generous about formatting, strict about the value."""

from __future__ import annotations

import pytest
from worldkit import write_world

from assay import numbers_in, states_number
from assay.sdk import TaskRun


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("$507,500.00", [507500.0]),
        ("507500", [507500.0]),
        ("Total: 1,234,567.5 EUR", [1234567.5]),
        ("refund -42 and 17", [-42.0, 17.0]),
        ("order A-1042 cost £42", [1042.0, 42.0]),
        ("order A1042", []),
        ("items 1,2 and 3", [1.0, 2.0, 3.0]),
        ("nothing here", []),
    ],
)
def test_numbers_in(text, numbers):
    assert numbers_in(text) == numbers


@pytest.mark.parametrize(
    ("text", "value", "tolerance", "stated"),
    [
        ("$507,500.00", 507500, 0.01, True),
        ("507501", 507500, 0.01, False),
        ("it is 61.99", 61.99, 0.01, True),
        ("it is 62.00", 61.99, 0.01, True),
        ("it is 62.01", 61.99, 0.01, False),
        ("about 100", 98, 2, True),
        ("about 101", 98, 2, False),
    ],
)
def test_states_number(text, value, tolerance, stated):
    assert states_number(text, value, tolerance) is stated


@pytest.fixture
def answer(tmp_path, open_world):
    """`answer(check, output)`: the check run of an answer check on that final output."""

    def graded(check: str, output: str):
        task = f'title = "t"\nrole = "desk"\n[customer]\nrequest = "r"\n[[checks]]\nname = "a"\nassert = "answer"\n{check}\n'
        with TaskRun(open_world(write_world(tmp_path, tasks={"t": task})), "t") as run:
            return run.finish(output).checks[0]

    return graded


def test_contains_is_case_insensitive_and_partial_credit_counts(answer):
    run = answer('contains = ["Store Credit", "refund"]', "I issued STORE CREDIT.")
    assert run.passed is False
    assert run.score == 0.5
    assert run.details == "the answer does not mention 'refund'"
    assert run.evidence == {
        "expected": {"contains": ["Store Credit", "refund"]},
        "found": {"contains": ["Store Credit"]},
    }


def test_not_contains(answer):
    run = answer('not_contains = ["Omar"]', "I asked omar.")
    assert (run.passed, run.details) == (False, "the answer mentions 'Omar'")
    assert answer('not_contains = ["Omar"]', "I asked Dana.").passed


def test_number_with_tolerance(answer):
    run = answer("number = 507500", "The total is $507,501.00.")
    assert run.passed is False
    assert run.details == "the answer states 507501, not 507500 (± 0.01)"
    assert answer("number = 507500", "The total is $507,500.00.").passed


def test_number_derived_from_the_initial_state(answer):
    check = "number = { sql = \"SELECT value FROM numbers WHERE name = 'ten'\" }"
    assert answer(check, "ten is 10").passed
    assert not answer(check, "ten is 9").passed
