"""SQLite behaviour carried over to PostgreSQL where a plain transpile loses it, and a refusal for
what has no translation: `INSERT OR IGNORE` / `OR REPLACE`, SQLite's date and time functions,
`json_extract` compared with numbers, `LIKE` ignoring case."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from sqlglot import exp

from assay.world.postgres.errors import TranslationError

# SQLite functions with no PostgreSQL function of the same meaning.
SQLITE_ONLY = frozenset(
    {
        "TOTAL",
        "TYPEOF",
        "JULIANDAY",
        "UNIXEPOCH",
        "PRINTF",
        "RANDOMBLOB",
        "ZEROBLOB",
        "LAST_INSERT_ROWID",
        "CHANGES",
        "TOTAL_CHANGES",
        "SQLITE_VERSION",
        "LIKELIHOOD",
        "UNLIKELY",
        "LIKELY",
        "JSON_EACH",
        "JSON_TREE",
    }
)
FORMATS = {"DATETIME": "YYYY-MM-DD HH24:MI:SS", "DATE": "YYYY-MM-DD", "TIME": "HH24:MI:SS"}
MODIFIER = re.compile(
    r"^\s*([+-]?\d+(?:\.\d+)?)\s+(year|month|day|hour|minute|second)s?\s*$", re.IGNORECASE
)
STARTS = {"start of day": "day", "start of month": "month", "start of year": "year"}
COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
NUMERIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Sum, exp.Avg)  # arithmetic and sums


def portable(tree: exp.Expression, keys: Mapping[str, Sequence[str]]) -> exp.Expression:
    """The tree with SQLite's meaning kept on PostgreSQL; TranslationError for what has none."""
    if isinstance(tree, exp.Insert):
        _insert_alternative(tree, keys)
    for node in list(tree.find_all(exp.Anonymous)):
        name = node.name.upper()
        if name in FORMATS:
            node.replace(_date_time(name, node.expressions))
        elif name in SQLITE_ONLY:
            raise TranslationError(f"{node.name.lower()}() has no PostgreSQL translation")
    if any(True for _ in tree.find_all(exp.Typeof)):
        raise TranslationError("typeof() has no PostgreSQL translation")
    for node in list(tree.find_all(exp.Date)):
        if not node.args.get("zone") and node.this is not None:
            node.replace(_date_time("DATE", [node.this]))
    if any(True for _ in tree.find_all(exp.Glob)):
        raise TranslationError("GLOB has no PostgreSQL translation; use LIKE")
    _json_numbers(tree)
    for node in list(tree.find_all(exp.Like)):
        node.replace(exp.ILike(this=node.this.copy(), expression=node.expression.copy()))
    return tree


def _insert_alternative(tree: exp.Insert, keys: Mapping[str, Sequence[str]]) -> None:
    """`INSERT OR IGNORE` → `ON CONFLICT DO NOTHING`; `INSERT OR REPLACE` → an upsert on the
    table's primary key that sets every inserted column."""
    alternative = (tree.args.get("alternative") or "").upper()
    if not alternative:
        return
    tree.set("alternative", None)
    if alternative == "IGNORE":
        tree.set("conflict", exp.OnConflict(action=exp.var("DO NOTHING")))
        return
    if alternative != "REPLACE":
        raise TranslationError(f"INSERT OR {alternative} has no PostgreSQL translation")
    table = _table(tree)
    key = list(keys.get(table, ()))
    columns = (
        [column.name for column in tree.this.expressions]
        if isinstance(tree.this, exp.Schema)
        else []
    )
    if not key or not columns:
        raise TranslationError(
            f"INSERT OR REPLACE into {table or 'a table'} needs the table's primary key and the "
            "inserted columns named"
        )
    updates = [
        exp.EQ(this=exp.column(name), expression=exp.column(name, table="excluded"))
        for name in columns
        if name.lower() not in {part.lower() for part in key}
    ]
    action = exp.var("DO UPDATE") if updates else exp.var("DO NOTHING")
    tree.set(
        "conflict",
        exp.OnConflict(
            action=action,
            conflict_keys=[exp.to_identifier(part) for part in key],
            expressions=updates or None,
        ),
    )


def _date_time(name: str, arguments: Sequence[exp.Expression]) -> exp.Expression:
    """SQLite's datetime(), date() and time(): text in SQLite's format, from 'now' (the machine's
    UTC time, as on SQLite) or a time value, moved by literal modifiers."""
    if not arguments:
        raise TranslationError(f"{name.lower()}() needs a time value")
    first = arguments[0]
    if isinstance(first, exp.Literal) and first.is_string and first.this.lower() == "now":
        moment: exp.Expression = exp.AtTimeZone(
            this=exp.CurrentTimestamp(), zone=exp.Literal.string("UTC")
        )
    else:
        moment = exp.cast(first.copy(), exp.DataType.build("timestamp"))
    for modifier in arguments[1:]:
        moment = _modified(name, moment, modifier)
    return exp.func("to_char", moment, exp.Literal.string(FORMATS[name]))


def _modified(name: str, moment: exp.Expression, modifier: exp.Expression) -> exp.Expression:
    text = modifier.this if isinstance(modifier, exp.Literal) and modifier.is_string else None
    if text is None:
        raise TranslationError(f"{name.lower()}(): only literal modifiers translate to PostgreSQL")
    if text.strip().lower() in STARTS:
        unit = STARTS[text.strip().lower()]
        return exp.func("date_trunc", exp.Literal.string(unit), moment)
    found = MODIFIER.match(text)
    if found is None:
        raise TranslationError(f"{name.lower()}(): modifier {text!r} has no PostgreSQL translation")
    amount, unit = found.groups()
    interval = exp.Interval(this=exp.Literal.string(f"{amount} {unit.lower()}s"))
    return exp.Add(this=moment, expression=interval)


def _json_numbers(tree: exp.Expression) -> None:
    """`json_extract` compared with a number, in arithmetic or summed: read as a number, as SQLite
    reads a JSON number (PostgreSQL would compare text with an integer and fail)."""
    for node in list(tree.find_all(exp.JSONExtract, exp.JSONExtractScalar)):
        if not isinstance(node.this, exp.Cast):
            node.set("this", exp.cast(node.this.copy(), exp.DataType.build("json")))
        parent = node.parent
        numeric = isinstance(parent, NUMERIC) or (
            isinstance(parent, COMPARISONS) and _is_number(_other_side(parent, node))
        )
        if numeric:
            node.replace(exp.cast(node.copy(), exp.DataType.build("numeric")))


def _other_side(parent: exp.Expression, node: exp.Expression) -> exp.Expression | None:
    return parent.expression if parent.this is node else parent.this


def _is_number(node: exp.Expression | None) -> bool:
    if isinstance(node, exp.Neg):
        node = node.this
    return isinstance(node, exp.Literal) and not node.is_string


def _table(tree: exp.Insert) -> str:
    table = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
    return table.name.lower() if isinstance(table, exp.Table) else ""
