"""Answer checks: generous about formatting, strict about the value."""

from __future__ import annotations

import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from worldkit import DESK_WORLD, write_world

from assay import numbers_in, states_number
from assay.errors import CheckError
from assay.sdk import TaskRun
from assay.verify.patterns import Found, search

ASSAY = str(Path(sys.executable).parent / "assay")


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


# An answer check reads the final answer, not the database: the cases of any_of and matches run
# on SQLite, and on both backends the tests of contains, of each pattern of matches and of any_of
# beside the others show the check on PostgreSQL.
SQLITE_ONLY = pytest.mark.parametrize("world_db", [None], ids=["sqlite"])


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


@SQLITE_ONLY
@pytest.mark.parametrize(
    ("check", "output", "passed", "score", "details", "found"),
    [
        ('any_of = ["refund", "credit"]', "I issued store CREDIT.", True, 1.0, None, ["credit"]),
        (
            'any_of = ["refund", "credit"]',
            "A refund, not credit.",
            True,
            1.0,
            None,
            ["refund", "credit"],
        ),
        ('any_of = "refund"', "Refunded.", True, 1.0, None, ["refund"]),
        (
            'any_of = ["refund", "credit"]',
            "I asked again.",
            False,
            0.0,
            "the answer mentions none of 'refund', 'credit'",
            [],
        ),
        (
            'any_of = ["refund", "credit"]',
            "",
            False,
            0.0,
            "the answer mentions none of 'refund', 'credit'",
            [],
        ),
    ],
)
def test_any_of_needs_one_phrase_of_several(answer, check, output, passed, score, details, found):
    run = answer(check, output)
    assert (run.passed, run.score) == (passed, score)
    assert run.details == (details or "the answer meets every condition")
    wanted = tomllib.loads(check)["any_of"]
    assert run.evidence == {
        "expected": {"any_of": [wanted] if isinstance(wanted, str) else wanted},
        "found": {"any_of": found},
    }


def test_any_of_is_one_condition_beside_the_others(answer):
    run = answer('contains = ["A-1042", "today"]\nany_of = ["refund", "credit"]', "A-1042: refund")
    assert (run.passed, run.score) == (False, 2 / 3)
    assert run.details == "the answer does not mention 'today'"


@SQLITE_ONLY
@pytest.mark.parametrize(
    ("pattern", "output", "match"),
    [
        (r"re_\d{4}", "your receipt is re_1234.", "re_1234"),
        (r"re_\d{4}", "your receipt is RE_1234.", "RE_1234"),  # ignores case, like contains
        (r"(?-i:re_)\d{4}", "your receipt is RE_1234.", None),  # unless the pattern says not to
        (r"re_\d{4}", "your receipt is re_123.", None),
        (r"\bA-\d{4}\b", "order A-10421", None),
        (r"^Done", "Done: refunded.", "Done"),
        (r"^Done", "All good.\nDone", None),  # ^ is the start of the answer
        (r"(?m)^Done", "All good.\nDone", "Done"),  # unless the pattern says (?m)
        (r"\$\d+\.\d{2}", "Refunded $42.00 to your card.", "$42.00"),
        (r"café", "CAFÉ au lait", "CAFÉ"),
        (r"x", "", None),
        ("😀", "done 😀", "😀"),
    ],
)
def test_matches_searches_the_answer_for_a_regular_expression(answer, pattern, output, match):
    run = answer(f"matches = '{pattern}'", output)
    assert run.passed is (match is not None)
    assert run.score == (1.0 if match is not None else 0.0)
    assert run.evidence == {"expected": {"matches": [pattern]}, "found": {"matches": [match]}}
    if match is None:
        assert run.details == f"the answer has no match for {pattern!r}"


def test_each_pattern_of_matches_is_a_condition(answer):
    run = answer(r"""matches = ['re_\d{4}', 'A-\d{4}']""", "re_1234 for order B-2003")
    assert (run.passed, run.score) == (False, 0.5)
    assert run.evidence["found"] == {"matches": ["re_1234", None]}
    assert run.details == r"the answer has no match for 'A-\\d{4}'"


def test_a_runaway_search_fails_its_pattern_at_the_time_limit(tmp_path, open_world):
    task = (
        'title = "t"\nrole = "desk"\n[customer]\nrequest = "r"\n[[checks]]\nname = "a"\n'
        "assert = \"answer\"\nmatches = ['\\d+\\d+x', 'ok']\n"
    )
    world = DESK_WORLD.replace("clock =", "check_timeout_s = 0.5\nclock =")
    root = write_world(tmp_path, tasks={"t": task}, world_toml=world)
    with TaskRun(open_world(root), "t") as run:
        started = time.perf_counter()
        result = run.finish("1" * 20_000 + " ok")  # re needs minutes for this
        elapsed = time.perf_counter() - started
    check = result.checks[0]
    assert (check.passed, check.score) == (False, 0.5)
    assert check.details == r"the answer could not be searched for '\\d+\\d+x' within 0.5 s"
    assert check.evidence["found"] == {"matches": [None, "ok"]}
    assert result.status == "completed" and result.error is None
    assert elapsed < 30


@pytest.mark.parametrize(
    ("check", "field", "message"),
    [
        (
            "matches = 're_('",
            "matches",
            "'re_(' is not a regular expression: missing ), unterminated subpattern at position 3",
        ),
        (
            "matches = ['ok', '*']",
            "matches",
            "'*' is not a regular expression: nothing to repeat at position 0",
        ),
        ("matches = ''", "matches", "an empty string is found in every answer"),
        ('any_of = ["refund", ""]', "any_of", "an empty string is found in every answer"),
        (
            "any_of = []",
            None,
            "an answer check needs any_of, matches, contains, not_contains or number",
        ),
    ],
)
def test_a_bad_pattern_or_phrase_is_a_load_error_naming_file_and_field(
    tmp_path, check, field, message
):
    task = f'title = "t"\nrole = "desk"\n[customer]\nrequest = "r"\n[[checks]]\nname = "a"\nassert = "answer"\n{check}\n'
    write_world(tmp_path / "w", tasks={"t": task})
    done = subprocess.run(
        [ASSAY, "run", "w", "--agent", "reference"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 2
    where = "checks[0]" + (f".{field}" if field else "")
    assert done.stderr == f"error: w/tasks/t.toml: {where}: {message}\n"


def test_a_search_that_cannot_run_is_a_scoring_failure():
    with pytest.raises(CheckError) as failed:
        search(
            ["("], "text", 0, 1.0
        )  # the loader refuses such a pattern; here it reaches the child
    assert str(failed.value).startswith("could not search the answer: re.error: missing )")
    assert search(["b+", "z"], "abbbc", 0, 1.0) == [Found(match="bbb"), Found()]
