"""Python verifiers: required and optional checks, explicit registration, errors that stop scoring."""

from __future__ import annotations

import pytest
from worldkit import WRITE_REFUSED, write_world

from assay.sdk import TaskRun


@pytest.fixture
def graded(tmp_path, open_world):
    """`graded(verifier, steps, output)`: the result of a task with one python check."""
    return lambda *args, **kwargs: _graded(open_world, tmp_path, *args, **kwargs)


def _graded(open_world, tmp_path, verifier: str, steps=(), output="", type_="goal"):
    task = f"""
title = "t"
role = "desk"
[customer]
request = "r"
[[checks]]
name = "by code"
assert = "python"
verifier = "{verifier}"
type = "{type_}"
"""
    with TaskRun(open_world(write_world(tmp_path, tasks={"t": task})), "t") as run:
        for tool, args in steps:
            run.call(tool, **args)
        return run.finish(output)


def test_all_passed(graded):
    result = graded("VER-NOTES", [("add_note", {"text": "x"})])
    check = result.checks[0]
    assert (check.passed, check.score, check.details) == (True, 1.0, "2 of 2 checks passed")
    assert check.evidence["checks"][0] == {
        "label": "A note was added",
        "passed": True,
        "detail": "1 notes added",
        "required": True,
    }
    assert result.outcome == "verified"


def test_optional_failing_moves_the_score_but_not_the_outcome(graded):
    result = graded("VER-NOTES", [("add_note", {"text": "x"}), ("add_note", {"text": "y"})])
    check = result.checks[0]
    assert (check.passed, check.score) == (True, 0.5)
    assert check.details == "1 of 2 checks passed; ✗ Exactly one note was added: 2 notes added"
    assert result.outcome == "verified"


def test_required_failing_fails(graded):
    result = graded("VER-NOTES")
    assert result.checks[0].passed is False
    assert result.outcome == "not_achieved"


def test_the_context_carries_the_agent_output(graded):
    assert graded("VER-OUTPUT", output="all done").outcome == "verified"
    assert graded("VER-OUTPUT", output="no").outcome == "not_achieved"


def test_no_required_check_is_an_error(graded):
    result = graded("VER-OPTIONAL-ONLY")
    assert result.outcome == "not_scored"
    assert (result.error.side, result.error.message) == (
        "scoring",
        "verifier VER-OPTIONAL-ONLY returned no required check",
    )


def test_a_verifier_that_raises_is_an_error(graded):
    result = graded("VER-RAISES")
    assert result.outcome == "not_scored"
    assert result.error.message == "verifier VER-RAISES raised ValueError: verifier bug"


def test_verifiers_cannot_write(tmp_path, open_world, backend):
    verifiers = (
        "from assay import check, verifier\n\n"
        "@verifier('VER-W')\n"
        "def writes(final, initial, ctx):\n"
        "    final.rows('DELETE FROM notes')\n"
        "    return [check('x', True)]\n"
    )
    task = 'title = "t"\nrole = "desk"\n[customer]\nrequest = "r"\n[[checks]]\nname = "c"\nassert = "python"\nverifier = "VER-W"\n'
    root = write_world(tmp_path, verifiers=verifiers, tasks={"t": task})
    with TaskRun(open_world(root), "t") as run:
        result = run.finish("")
        assert run.session.live.db.value("SELECT count(*) FROM notes") == 2
    assert result.outcome == "not_scored"
    assert result.error.message == (
        f"verifier VER-W raised QueryRefused: refused: {WRITE_REFUSED[backend]}"
    )
