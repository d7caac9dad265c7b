"""`answer` checks on the agent's final output: generous about formatting, strict about the value."""

from __future__ import annotations

import re
from typing import Any

from assay.spec.checks import AnswerCheck
from assay.verify.compare import describe
from assay.verify.context import VerifyContext
from assay.verify.model import CheckRun
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


def run_answer_check(check: AnswerCheck, context: VerifyContext) -> CheckRun:
    output = context.agent_output or ""
    lowered = output.lower()
    expected: dict[str, Any] = {}
    found: dict[str, Any] = {}
    failures: list[str] = []
    met = total = 0
    if check.contains:
        present = [phrase for phrase in check.contains if phrase.lower() in lowered]
        expected["contains"], found["contains"] = check.contains, present
        missing = [phrase for phrase in check.contains if phrase not in present]
        failures += [f"does not mention {phrase!r}" for phrase in missing]
        met, total = met + len(present), total + len(check.contains)
    if check.not_contains:
        named = [phrase for phrase in check.not_contains if phrase.lower() in lowered]
        expected["not_contains"], found["not_contains"] = check.not_contains, named
        failures += [f"mentions {phrase!r}" for phrase in named]
        met, total = met + len(check.not_contains) - len(named), total + len(check.not_contains)
    if check.number is not None:
        value = float(derive(check.number, context, check.name))
        stated = numbers_in(output)
        expected["number"], expected["tolerance"] = value, check.tolerance
        found["numbers"] = stated
        if states_number(output, value, check.tolerance):
            met += 1
        else:
            shown = ", ".join(describe(n) for n in stated) or "no number"
            failures.append(
                f"states {shown}, not {describe(value)} (± {describe(check.tolerance)})"
            )
        total += 1
    passed = not failures
    details = "the answer " + ("meets every condition" if passed else "; ".join(failures))
    return CheckRun(
        name=check.name,
        type=check.type,
        kind="answer",
        weight=check.weight,
        axis=check.axis,
        passed=passed,
        score=met / total if total else (1.0 if passed else 0.0),
        details=details,
        evidence={"expected": expected, "found": found},
    )
