"""SQLite-dialect statements, as tools, verifiers and checks write them, translated for PostgreSQL.

Each text is translated once per world (cached): `?` and `:name` become psycopg placeholders,
`json_extract` reads text columns too, and `LIKE` ignores case as it does on SQLite.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.dialects.sqlite import SQLite
from sqlglot.tokens import TokenType

from assay.formats.sqltext import quiet_parser
from assay.world.postgres.errors import TranslationError
from assay.world.postgres.portable import portable

__all__ = ["Statement", "TranslationError", "Translator"]

POSITIONAL = "assay_p{}"
_MARK = "\x01{}\x01"
_WRITES = (exp.Insert, exp.Update, exp.Delete)
_CLAUSE_END = {
    TokenType.FROM,
    TokenType.WHERE,
    TokenType.GROUP_BY,
    TokenType.ORDER_BY,
    TokenType.LIMIT,
    TokenType.UNION,
    TokenType.EXCEPT,
    TokenType.INTERSECT,
    TokenType.SEMICOLON,
    TokenType.HAVING,
    TokenType.WINDOW,
}


@dataclass(frozen=True)
class Statement:
    """One statement ready for psycopg: its text, how to bind, and what it writes."""

    text: str
    names: tuple[str, ...]
    positional: int
    writes: frozenset[str]
    returning: str | None
    count: int = 1  # statements in the text
    query: bool = True  # one SELECT (or WITH … SELECT, UNION, …): what a cursor may run

    def bind(self, params: Sequence[Any] | Mapping[str, Any]) -> dict[str, Any] | None:
        """psycopg's parameters for SQLite-style `params` (a sequence for `?`, a mapping for `:name`)."""
        if not self.names:
            if params:
                raise TranslationError(f"the statement takes no parameters, {len(params)} given")
            return None
        if isinstance(params, Mapping):
            missing = [name for name in self.names if name not in params]
            if missing:
                raise TranslationError(f"no value for parameter :{missing[0]}")
            return {name: params[name] for name in self.names}
        if len(params) != self.positional:
            raise TranslationError(
                f"the statement takes {self.positional} parameters, {len(params)} given"
            )
        return {POSITIONAL.format(index): value for index, value in enumerate(params)}


class Translator:
    """Translates and caches statements for one world; `rowids` maps a table to its rowid column,
    `keys` to its primary key's columns (what `INSERT OR REPLACE` replaces on)."""

    def __init__(self, rowids: Mapping[str, str], keys: Mapping[str, Sequence[str]] | None = None):
        self.rowids = dict(rowids)
        self.keys = {table: tuple(columns) for table, columns in (keys or {}).items()}
        self.translate = lru_cache(maxsize=4096)(self._translate)

    def _translate(self, sql: str) -> Statement:
        text, positional = _name_positional(_replace_into(sql))
        try:
            with quiet_parser():
                trees = [tree for tree in sqlglot.parse(text, read="sqlite") if tree is not None]
        except sqlglot.errors.SqlglotError as error:
            raise TranslationError(f"cannot translate for PostgreSQL: {error}") from None
        found: list[str] = []
        writes: set[str] = set()
        returning = None
        rendered = []
        for tree in trees:
            writes |= {_target(node) for node in tree.find_all(*_WRITES)} - {""}
            if len(trees) == 1 and isinstance(tree, exp.Insert):
                returning = self._add_returning(tree)
            if len(trees) == 1 and isinstance(tree, exp.Select):
                _name_as_sqlite(tree, sql)
            tree = portable(tree, self.keys)
            rendered.append(_mark_placeholders(tree, found).sql(dialect="postgres"))
        return Statement(
            text=_placeholders(_MARK, "; ".join(rendered), found),
            names=tuple(dict.fromkeys(found)),
            positional=positional,
            writes=frozenset(writes),
            returning=returning,
            count=len(trees),
            query=len(trees) == 1 and isinstance(trees[0], exp.Query),
        )

    def _add_returning(self, tree: exp.Insert) -> str | None:
        column = self.rowids.get(_target(tree))
        if column is None or tree.args.get("returning") is not None:
            return None
        tree.set("returning", exp.Returning(expressions=[exp.column(column, quoted=True)]))
        return column


def _replace_into(sql: str) -> str:
    """SQLite's `REPLACE INTO` at the start of a statement, spelled `INSERT OR REPLACE INTO`."""
    try:
        tokens = SQLite().tokenize(sql)
    except sqlglot.errors.SqlglotError:
        return sql  # the translation reports it
    starts = [
        token
        for index, token in enumerate(tokens[:-1])
        if token.text.upper() == "REPLACE"
        and tokens[index + 1].text.lstrip().upper().startswith("INTO")  # read as a command's text
        and (index == 0 or tokens[index - 1].token_type == TokenType.SEMICOLON)
    ]
    for token in reversed(starts):
        sql = sql[: token.start] + "INSERT OR REPLACE" + sql[token.end + 1 :]
    return sql


def _name_positional(sql: str) -> tuple[str, int]:
    """Rewrite each `?` as a named placeholder, so that every parameter is bound by name."""
    try:
        tokens = SQLite().tokenize(sql)
    except sqlglot.errors.SqlglotError as error:
        raise TranslationError(f"cannot translate for PostgreSQL: {error}") from None
    marks = [token for token in tokens if token.token_type == TokenType.PLACEHOLDER]
    if not marks:
        return sql, 0
    parts, last = [], 0
    for index, token in enumerate(marks):
        parts += [sql[last : token.start], ":" + POSITIONAL.format(index)]
        last = token.end + 1
    parts.append(sql[last:])
    return "".join(parts), len(marks)


def _name_as_sqlite(tree: exp.Select, sql: str) -> None:
    """Name each computed column by its text, as SQLite does (`count(*)`, not `count`)."""
    spans = _projection_texts(sql)
    if len(spans) != len(tree.expressions):
        return
    for node, text in zip(list(tree.expressions), spans, strict=True):
        if not isinstance(node, exp.Alias | exp.Column | exp.Star):
            node.replace(exp.alias_(node.copy(), text, quoted=True))


def _projection_texts(sql: str) -> list[str]:
    """The source text of each item of the outermost SELECT list."""
    depth, items = 0, []
    for token in SQLite().tokenize(sql):
        kind = token.token_type
        if depth == 0 and kind == TokenType.SELECT and not items:
            items.append([])
            continue
        if depth == 0 and items and kind in _CLAUSE_END:
            break
        if depth == 0 and items and kind == TokenType.COMMA:
            items.append([])
            continue
        depth += (kind == TokenType.L_PAREN) - (kind == TokenType.R_PAREN)
        if items:
            items[-1].append(token)
    if items and items[0] and items[0][0].token_type in (TokenType.DISTINCT, TokenType.ALL):
        items[0] = items[0][1:]
    return [sql[item[0].start : item[-1].end + 1] if item else "" for item in items]


def _mark_placeholders(tree: exp.Expression, found: list[str]) -> exp.Expression:
    """Stand a unique mark in for each placeholder, so the text can be escaped around it."""
    for node in list(tree.find_all(exp.Placeholder)):
        if not node.name:
            raise TranslationError("unsupported placeholder; use ? or :name")
        node.replace(exp.var(_MARK.format(len(found))))
        found.append(node.name)
    return tree


def _placeholders(mark: str, text: str, found: list[str]) -> str:
    """psycopg's `%(name)s` for each mark, with every other `%` escaped (only when binding)."""
    if not found:
        return text
    text = text.replace("%", "%%")
    for index, name in enumerate(found):
        text = text.replace(mark.format(index), f"%({name})s", 1)
    return text


def _target(node: exp.Expression) -> str:
    table = node.this
    if isinstance(table, exp.Schema):
        table = table.this
    return table.name.lower() if isinstance(table, exp.Table) else ""
