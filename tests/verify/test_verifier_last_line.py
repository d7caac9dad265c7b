"""The line of a failing verifier's output the results table shows."""

from __future__ import annotations

from typing import Any

from assay.verify.check_run import CheckRun
from assay.verify.script import LONGEST_LINE, verifier_last_line


def check(tail: str, *, passed: bool = False, kind: str = "script", **more: Any) -> CheckRun:
    evidence = {"test_stdout_tail": tail, **more} if kind == "script" else {"actual": 0}
    return CheckRun(
        name="the test script's reward",
        type="goal",
        kind=kind,
        weight=1.0,
        axis=None,
        passed=passed,
        score=1.0 if passed else 0.0,
        details=None,
        evidence=evidence,
    )


def test_the_last_line_that_is_not_blank_without_colours():
    tail = "collected 1 item\n\x1b[31mFAILED test_x - assert 1 == 2\x1b[0m\r\n\n   \n"
    assert verifier_last_line(check(tail)) == "FAILED test_x - assert 1 == 2"


def test_a_long_line_is_cut_to_one_readable_line():
    line = verifier_last_line(check("E" * 500))
    assert line is not None and len(line) == LONGEST_LINE and line.endswith("…")


def test_nothing_when_it_passed_printed_nothing_or_is_withheld():
    assert verifier_last_line(check("ok", passed=True)) is None
    assert verifier_last_line(check(" \n\n")) is None
    assert verifier_last_line(check("x").redacted()) is None
    assert verifier_last_line(check("x", kind="sql")) is None
