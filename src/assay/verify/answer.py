"""`answer` checks on the agent's final output: generous about formatting, strict about the value."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from assay.formats.checks import ANSWER_FLAGS, AnswerCheck
from assay.verify.check_run import CheckRun
from assay.verify.compare import describe
from assay.verify.context import VerifyContext
from assay.verify.patterns import search
from assay.verify.sql import derive

_CURRENCY = re.compile(r"[$€£¥]")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?")


def numbers_in(text: str) -> list[float]:
    """Every number stated in the text: `$507,500.00` states 507500; `A-1042` states 1042."""
    plain = _THOUSANDS.sub("", _CURRENCY.sub("", text))
    return [float(match) for match in _NUMBER.findall(plain)]


def states_number(text: str, value: float, tolerance: float = 0.01) -> bool:
    """True when the text states `value` anywhere, within `tolerance`."""
    return any(abs(candidate - value) <= tolerance + 1e-12 for candidate in numbers_in(text))


@dataclass
class _Tally:
    """The conditions of one answer check as they are met or missed, with their evidence."""

    expected: dict[str, Any] = field(default_factory=dict)
    found: dict[str, Any] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    met: int = 0
    total: int = 0

    def count(self, met: int, total: int, failures: list[str]) -> None:
        self.met, self.total = self.met + met, self.total + total
        self.failures += failures


def run_answer_check(check: AnswerCheck, context: VerifyContext) -> CheckRun:
    output = context.agent_output or ""
    lowered = output.lower()
    tally = _Tally()
    if check.contains:
        present = [phrase for phrase in check.contains if phrase.lower() in lowered]
        tally.expected["contains"], tally.found["contains"] = check.contains, present
        missing = [phrase for phrase in check.contains if phrase not in present]
        tally.count(len(present), len(check.contains), [f"does not mention {p!r}" for p in missing])
    if check.not_contains:
        named = [phrase for phrase in check.not_contains if phrase.lower() in lowered]
        tally.expected["not_contains"], tally.found["not_contains"] = check.not_contains, named
        tally.count(
            len(check.not_contains) - len(named),
            len(check.not_contains),
            [f"mentions {p!r}" for p in named],
        )
    if check.any_of:
        present = [phrase for phrase in check.any_of if phrase.lower() in lowered]
        tally.expected["any_of"], tally.found["any_of"] = check.any_of, present
        shown = ", ".join(repr(phrase) for phrase in check.any_of)
        tally.count(bool(present), 1, [] if present else [f"mentions none of {shown}"])
    if check.matches:
        _matches(check.matches, output, context.final.timeout_s, tally)
    if check.number is not None:
        _number(check, context, output, tally)
    passed = not tally.failures
    details = "the answer " + ("meets every condition" if passed else "; ".join(tally.failures))
    return CheckRun.of(
        check,
        passed=passed,
        score=tally.met / tally.total if tally.total else (1.0 if passed else 0.0),
        details=details,
        evidence={"expected": tally.expected, "found": tally.found},
    )


def _matches(patterns: list[str], output: str, limit_s: float, tally: _Tally) -> None:
    """Each pattern must be found in the output; a search past the time limit fails its pattern."""
    results = search(patterns, output, ANSWER_FLAGS, limit_s)
    tally.expected["matches"] = patterns
    tally.found["matches"] = [result.match for result in results]
    failures = [
        f"could not be searched for {pattern!r} within {describe(limit_s)} s"
        if result.timed_out
        else f"has no match for {pattern!r}"
        for pattern, result in zip(patterns, results, strict=True)
        if result.match is None
    ]
    tally.count(len(patterns) - len(failures), len(patterns), failures)


def _number(check: AnswerCheck, context: VerifyContext, output: str, tally: _Tally) -> None:
    value = float(derive(check.number, context, check.name))
    stated = numbers_in(output)
    tally.expected["number"], tally.expected["tolerance"] = value, check.tolerance
    tally.found["numbers"] = stated
    if states_number(output, value, check.tolerance):
        tally.count(1, 1, [])
    else:
        shown = ", ".join(describe(n) for n in stated) or "no number"
        tally.count(
            0, 1, [f"states {shown}, not {describe(value)} (± {describe(check.tolerance)})"]
        )
