"""`sql` checks: one read-only query, one value, one of six comparisons."""

from __future__ import annotations

from typing import Any

from assay.errors import CheckError
from assay.formats.checks import Derived, SqlCheck
from assay.verify.check_run import CheckRun
from assay.verify.compare import SYMBOLS, compare, describe
from assay.verify.context import VerifyContext
from assay.world.guard import QueryFailed, QueryLimit, QueryRefused, QueryTimeout

SHAPE = "a check needs exactly one row of one column"


class _Refused(Exception):
    pass


def run_sql_check(check: SqlCheck, context: VerifyContext) -> CheckRun:
    evidence: dict[str, Any] = {"query": check.sql, "params": check.params, "op": check.op}
    try:
        expected = derive(check.expect, context, check.name)
        evidence["expected"] = expected
        names, rows = _query(context, check.db, check.sql, check.params, check.name)
    except (_Refused, QueryTimeout, QueryLimit) as stopped:
        return _result(check, False, f"the query was {stopped}", {**evidence, "actual": None})
    shape = _shape(names, rows)
    if shape:
        evidence["actual"] = [list(row) for row in rows[:5]]
        return _result(check, False, f"{shape}; {SHAPE}", evidence)
    actual = rows[0][0]
    evidence["actual"] = actual
    passed = compare(actual, check.op, expected)
    details = (
        f"the query returned {describe(actual)}; wanted {SYMBOLS[check.op]} {describe(expected)}"
    )
    return _result(check, passed, details, evidence)


def derive(wanted: Any, context: VerifyContext, name: str) -> Any:
    """The wanted value: as written, or computed by its own query (on the initial state by default)."""
    if not isinstance(wanted, Derived):
        return wanted
    try:
        names, rows = _query(context, wanted.db, wanted.sql, wanted.params, name)
    except (_Refused, QueryTimeout, QueryLimit) as stopped:
        raise CheckError(
            f"check {name!r}: the query deriving its expectation was {stopped}"
        ) from None
    shape = _shape(names, rows)
    if shape:
        raise CheckError(f"check {name!r}: the query deriving its expectation {shape}; {SHAPE}")
    return rows[0][0]


def _query(
    context: VerifyContext, db: str, sql: str, params: dict[str, Any], name: str
) -> tuple[list[str], list[tuple[Any, ...]]]:
    try:
        return context.view(db).head(sql, params, 2)  # two rows tell one from many
    except QueryRefused as refused:
        raise _Refused(str(refused)) from None
    except QueryFailed as failed:
        raise CheckError(f"check {name!r}: the query failed: {failed}") from None


def _shape(names: list[str], rows: list[tuple[Any, ...]]) -> str | None:
    if len(names) != 1:
        return f"the query returned {len(names)} columns ({', '.join(names)})"
    if len(rows) != 1:
        return "the query returned no rows" if not rows else "the query returned more than one row"
    return None


def _result(check: SqlCheck, passed: bool, details: str, evidence: dict[str, Any]) -> CheckRun:
    return CheckRun.of(
        check,
        passed=passed,
        score=1.0 if passed else 0.0,
        details=details,
        evidence=evidence,
    )
