"""Static proof that a check's SQL names only tables and columns its world's schema has.

Aliases, CTEs, derived tables and correlated subqueries are resolved by sqlglot's `qualify`; what
remains unresolved is a name the schema lacks. Tables named `sandbox_*` and table-valued functions are
never flagged: their columns are not judged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from sqlglot import exp
from sqlglot.errors import OptimizeError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope, traverse_scope

from assay.formats.sqltext import DIALECTS
from assay.formats.world import RESERVED_PREFIX

Schema = Mapping[str, Iterable[str]]
_UNKNOWN_COLUMN = re.compile(r"^Unknown column: (.+)$")
# Catalogs a check may read besides the world's own tables; their names are not judged.
_SYSTEM_PREFIXES = ("sqlite_", "pg_", "information_schema")


def unknown_names(statement: exp.Expression, columns: Schema, backend: str = "sqlite") -> list[str]:
    """Every table or column `statement` names that `columns` (table → column names) lacks."""
    schema = {table.lower(): {name.lower() for name in names} for table, names in columns.items()}
    problems = _unknown_tables(statement, schema)
    if problems:
        return problems  # the columns of a table that does not exist cannot be judged
    named = {table.name.lower() for table in statement.find_all(exp.Table)}
    try:
        qualified = qualify(
            statement.copy(),
            # only the tables it names: sqlglot normalises every table it is given, per statement
            schema={
                table: dict.fromkeys(names, "TEXT")
                for table, names in schema.items()
                if table in named
            },
            dialect=DIALECTS[backend],
            validate_qualify_columns=False,
            identify=False,
        )
    except OptimizeError as error:
        found = _UNKNOWN_COLUMN.match(str(error).splitlines()[0])
        # Other failures are limits of the resolver, not proof of a wrong name.
        return [_explained(statement, found.group(1), schema)] if found else []
    seen: set[int] = set()
    for scope in traverse_scope(qualified):
        problems += _unknown_columns(scope, schema, seen)
    return list(dict.fromkeys(problems))


def _unknown_tables(statement: exp.Expression, schema: dict[str, set[str]]) -> list[str]:
    ctes = {cte.alias_or_name.lower() for cte in statement.find_all(exp.CTE)}
    known = ", ".join(sorted(name for name in schema if not name.startswith(RESERVED_PREFIX)))
    problems = []
    for table in statement.find_all(exp.Table):
        name = table.name.lower()
        if _unjudged(table) or name in ctes or name in schema:
            continue
        problems.append(f"unknown table {table.name!r} (tables: {known or 'none'})")
    return list(dict.fromkeys(problems))


def _unjudged(table: exp.Table) -> bool:
    """A table-valued function, a reserved `sandbox_*` table or a system catalog."""
    if not table.name or not isinstance(table.this, exp.Identifier):
        return True
    name = table.name.lower()
    schema = (table.db or "").lower()
    system = name.startswith(_SYSTEM_PREFIXES) or schema.startswith(_SYSTEM_PREFIXES)
    return system or name.startswith(RESERVED_PREFIX)


def _unknown_columns(scope: Scope, schema: dict[str, set[str]], seen: set[int]) -> list[str]:
    problems = []
    aliases = {name.lower() for name in getattr(scope.expression, "named_selects", [])}
    projected = {
        id(c) for s in getattr(scope.expression, "selects", []) for c in s.find_all(exp.Column)
    }
    for column in scope.columns:
        if id(column) in seen:
            continue  # a correlated column is listed by its own scope and the one around it
        seen.add(id(column))
        by_alias = column.name.lower() in aliases and id(column) not in projected
        if column.table:
            problem = _check_qualified(scope, column, schema)
        elif by_alias or _opaque(scope, schema):
            problem = None
        else:
            problem = _check_unqualified(scope, column, schema)
        if problem:
            problems.append(problem)
    return problems


def _check_qualified(scope: Scope, column: exp.Column, schema: dict[str, set[str]]) -> str | None:
    source = _source(scope, column.table)
    if source is None:
        return f"unknown table or alias {column.table!r} in {column.sql()}"
    names = _names_of(source, schema)
    if names is None or column.name.lower() in names:
        return None
    table = source.name if isinstance(source, exp.Table) else column.table
    return f"unknown column {table}.{column.name} ({table} has: {', '.join(sorted(names))})"


def _check_unqualified(scope: Scope, column: exp.Column, schema: dict[str, set[str]]) -> str | None:
    name = column.name.lower()
    holders = []
    for alias, source in scope.selected_sources.items():
        names = _names_of(source[1], schema)
        if names is not None and name in names:
            holders.append(source[1].name if isinstance(source[1], exp.Table) else alias)
    if len(holders) > 1:
        return f"ambiguous column {column.name!r} (in {', '.join(sorted(holders))})"
    if holders:
        return None
    tables = ", ".join(sorted(_source_names(scope))) or "none"
    hint = "; a string is written in single quotes" if column.this.quoted else ""
    return f"unknown column {column.name!r} (tables read: {tables}){hint}"


def _source(scope: Scope | None, alias: str) -> exp.Table | Scope | None:
    """The table or derived source an alias names, looking outwards for correlated subqueries."""
    while scope is not None:
        if alias in scope.sources:
            return scope.sources[alias]
        scope = scope.parent
    return None


def _names_of(source: exp.Table | Scope, schema: dict[str, set[str]]) -> set[str] | None:
    """The columns a source offers, or None when they cannot be known."""
    if isinstance(source, exp.Table):
        return None if _unjudged(source) else schema.get(source.name.lower())
    selects = getattr(source.expression, "selects", [])
    if any(isinstance(select, exp.Star) or select.is_star for select in selects):
        return None
    return {name.lower() for name in source.expression.named_selects}


def _opaque(scope: Scope, schema: dict[str, set[str]]) -> bool:
    """A scope reading a source whose columns are unknown: its bare columns cannot be judged."""
    return any(_names_of(source, schema) is None for _, source in scope.selected_sources.values())


def _source_names(scope: Scope) -> list[str]:
    return [
        source.name if isinstance(source, exp.Table) else alias
        for alias, (_, source) in scope.selected_sources.items()
    ]


def _explained(statement: exp.Expression, name: str, schema: dict[str, set[str]]) -> str:
    """The unknown column as written (`o.statuss`), with what its table has when that is known."""
    for scope in traverse_scope(statement):
        for column in scope.columns:
            if column.table and column.name.lower() == name.lower():
                return _check_qualified(scope, column, schema) or f"unknown column {column.sql()}"
    return f"unknown column {name!r}"
