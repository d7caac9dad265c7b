"""Field items, the unit every typed check scores: `path <op> expected` on the chosen record.

Score = items passed / items; the check passes when every item does
(docs/contracts/healthcare.md §1).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.errors import CheckError
from assay.formats.checks import CheckBase, Counted, FieldItem
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


def field_items(
    check: CheckBase,
    fields: Sequence[FieldItem],
    actual_at: Callable[[str], Any],
    refused: tuple[type[Exception], ...] = (),
) -> list[ItemResult]:
    """Each field item against the value `actual_at` reads at its path.

    refused: what `actual_at` raises for a path it cannot read, the check's error."""
    results = []
    for item in fields:
        try:
            actual = actual_at(item.path)
        except refused as error:
            raise CheckError(f"check {check.name!r}: {error}") from None
        passed = compare_item(actual, item.op, item.expected)
        results.append(ItemResult(item.path, item.expected, actual, passed))
    return results


def path_problems(
    correlate_by: Mapping[str, Any],
    fields: Sequence[FieldItem],
    parse: Callable[[str], object],
    bad: type[Exception],
    shorthands: Collection[str] = (),
) -> list[tuple[str, str]]:
    """(field, problem) for each path of correlate_by (but `shorthands`) and of the field items that
    `parse` refuses with `bad`."""
    named = [(f"correlate_by.{key}", key) for key in correlate_by if key not in shorthands]
    named += [(f"fields[{index}].path", item.path) for index, item in enumerate(fields)]
    found = []
    for where, path in named:
        try:
            parse(path)
        except bad as error:
            found.append((where, str(error)))
    return found


def tally_items(check: Counted, matched: int, changed: bool | None = None) -> list[ItemResult]:
    """`$count` when the check asks how many matched; `$changed` when it asks that the record was
    written during the task run (`changed` says whether it was)."""
    results = []
    if check.count is not None:
        results.append(ItemResult("$count", check.count, matched, matched == check.count))
    if changed is not None:
        results.append(ItemResult("$changed", True, changed, changed))
    return results


def best_scored(
    rows: Sequence[dict[str, Any]],
    items_of: Callable[[dict[str, Any]], list[ItemResult]],
    *latest: str,
) -> tuple[dict[str, Any], list[ItemResult]]:
    """The row whose items pass most, with its items; a tie goes to the largest `latest` columns."""
    scored = [(row, items_of(row)) for row in rows]
    return max(
        scored,
        key=lambda pair: (sum(item.passed for item in pair[1]), *(pair[0][c] for c in latest)),
    )


def scored_run(
    check: CheckBase,
    subject: str,
    results: Sequence[ItemResult],
    evidence: dict[str, Any],
    what: str = "fields",
) -> CheckRun:
    """The check run of the chosen record's items; `evidence` gains `<what>_results`."""
    score, passed = item_score(results)
    evidence = {**evidence, _results_key(what): [result.as_json() for result in results]}
    details = item_details(subject, results, what)
    return CheckRun.of(check, passed=passed, score=score, details=details, evidence=evidence)


def unmatched_run(
    check: CheckBase, details: str, evidence: dict[str, Any], what: str = "fields"
) -> CheckRun:
    """The check run when nothing matched the selection: 0, with no items."""
    evidence = {**evidence, _results_key(what): []}
    return CheckRun.of(check, passed=False, score=0.0, details=details, evidence=evidence)


def _results_key(what: str) -> str:
    return f"{what.removesuffix('s')}_results"  # field_results, assertion_results


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
