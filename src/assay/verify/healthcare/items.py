"""Field items, the unit every typed check scores: `path <op> expected` on the chosen record.

Score = items passed / items; the check passes when every item does
(docs/contracts/healthcare.md §1).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from assay.verify.check_run import CheckRun
from assay.verify.compare import COMPARISONS, compare, describe

MISSING = object()  # a path that found nothing, shown as null


@dataclass(frozen=True)
class ItemResult:
    path: str
    expected: Any
    actual: Any
    passed: bool

    def as_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "expected": self.expected,
            "actual": self.actual,
            "passed": self.passed,
        }


def compare_item(actual: Any, op: str, expected: Any) -> bool:
    """Whether `actual <op> expected`; a list of values passes `eq` when one of them does."""
    if op == "exists":
        return actual is not None and actual != []
    if op == "absent":
        return actual is None or actual == []
    if op == "in":
        return isinstance(expected, list) and any(_one(actual, "eq", item) for item in expected)
    if op == "contains":
        if isinstance(actual, list):
            return any(_one(value, "eq", expected) for value in actual)
        return isinstance(actual, str) and str(expected).lower() in actual.lower()
    if op == "matches":
        return actual is not None and re.search(str(expected), str(actual)) is not None
    if op in COMPARISONS:
        if isinstance(actual, list) and op == "eq":
            return any(_one(value, op, expected) for value in actual)
        return _one(actual, op, expected)
    return False


def _one(actual: Any, op: str, expected: Any) -> bool:
    if isinstance(actual, bool) or isinstance(expected, bool):
        return (actual == expected) if op == "eq" else (actual != expected) if op == "ne" else False
    return compare(actual, op, expected)


def item_score(results: Sequence[ItemResult]) -> tuple[float, bool]:
    """(items passed / items, every item passed); no items at all passes with 1."""
    if not results:
        return 1.0, True
    passed = sum(result.passed for result in results)
    return passed / len(results), passed == len(results)


def item_details(subject: str, results: Sequence[ItemResult], what: str = "fields") -> str:
    """`Patient/x matched; 3 of 4 fields passed; ✗ gender: wanted male, got female`."""
    passed = sum(result.passed for result in results)
    text = f"{subject} matched; {passed} of {len(results)} {what} passed"
    failed = [result for result in results if not result.passed]
    if failed:
        shown = "; ".join(
            f"✗ {result.path}: wanted {_shown(result.expected)}, got {_shown(result.actual)}"
            for result in failed[:3]
        )
        more = f" (+{len(failed) - 3} more)" if len(failed) > 3 else ""
        text += f"; {shown}{more}"
    return text


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_shown(item) for item in value) + "]"
    return describe(value) if not isinstance(value, str) else value


def none_asked_run(check: Any, matched: int, subject: str, evidence: dict[str, Any]) -> CheckRun:
    """A check that asks for none (`count = 0`, `absent = true`): 1 when nothing matched, else 0."""
    asked = "absent = true" if check.absent else "count = 0"
    evidence = {**evidence, "matched": matched, "field_results": []}
    if not matched:
        details = f"no {subject} matched, as {asked} asks"
        return CheckRun.of(check, passed=True, score=1.0, details=details, evidence=evidence)
    details = f"{matched} {subject} matched; {asked} asks for none"
    return CheckRun.of(check, passed=False, score=0.0, details=details, evidence=evidence)
