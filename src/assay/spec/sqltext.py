"""Static proof that a check's SQL is one read-only statement, before it ever runs."""

from __future__ import annotations

from functools import lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

DIALECTS = {"sqlite": "sqlite", "postgresql": "postgres"}

# Nodes that change data, schema, settings or the session; refused anywhere in the tree.
FORBIDDEN = (
    exp.DML,
    exp.DDL,
    exp.Create,
    exp.Drop,
    exp.Alter,
    exp.Command,
    exp.Pragma,
    exp.Attach,
    exp.Detach,
    exp.Transaction,
    exp.Commit,
    exp.Rollback,
    exp.Set,
    exp.Into,
    exp.Lock,
    exp.Analyze,
    exp.Use,
)

# Functions with side effects or access outside the database.
FORBIDDEN_FUNCTIONS = frozenset(
    {
        "set_config",
        "load_extension",
        "readfile",
        "writefile",
        "edit",
        "nextval",
        "setval",
        "dblink",
        "dblink_exec",
        "pg_sleep",
        "pg_read_file",
        "pg_read_binary_file",
        "pg_ls_dir",
        "pg_terminate_backend",
        "pg_cancel_backend",
        "pg_advisory_lock",
        "pg_advisory_xact_lock",
        "pg_notify",
        "lo_import",
        "lo_export",
        "txid_current",
    }
)


class UnsafeSql(ValueError):
    """The text is not one read-only statement; the message says why."""


@lru_cache(maxsize=4096)
def readonly_statement(sql: str, backend: str = "sqlite") -> exp.Expression:
    """Parse `sql` and prove it is exactly one SELECT/WITH statement with no writes in it."""
    try:
        statements = [s for s in sqlglot.parse(sql, read=DIALECTS[backend]) if s is not None]
    except ParseError as error:
        first = error.errors[0] if error.errors else {}
        where = f" at line {first.get('line')}, column {first.get('col')}" if first else ""
        raise UnsafeSql(f"does not parse{where}: {first.get('description', error)}") from None
    if not statements:
        raise UnsafeSql("is empty")
    if len(statements) > 1:
        raise UnsafeSql(f"holds {len(statements)} statements; a check is exactly one")
    statement = statements[0]
    if not isinstance(statement, exp.Query):
        raise UnsafeSql(f"is a {_kind(statement)} statement; only SELECT or WITH is allowed")
    for node in statement.walk():
        if isinstance(node, FORBIDDEN):
            raise UnsafeSql(f"contains {_kind(node)}; a check may only read")
        if isinstance(node, exp.Func) and _function_name(node) in FORBIDDEN_FUNCTIONS:
            raise UnsafeSql(f"calls {_function_name(node)}(), which a check may not call")
    return statement


def parameters_in(statement: exp.Expression) -> set[str]:
    """Named parameters (`:name`); a positional `?` shows as the empty name."""
    return {"" if node.name == "?" else node.name for node in statement.find_all(exp.Placeholder)}


def tables_in(statement: exp.Expression) -> set[str]:
    """Real tables a statement reads (CTE names left out)."""
    ctes = {cte.alias_or_name.lower() for cte in statement.find_all(exp.CTE)}
    return {
        table.name.lower()
        for table in statement.find_all(exp.Table)
        if table.name and table.name.lower() not in ctes
    }


def _kind(node: exp.Expression) -> str:
    key = node.key.upper()
    return {"DELETE": "DELETE", "INTO": "SELECT INTO", "LOCK": "FOR UPDATE"}.get(key, key)


def _function_name(node: exp.Func) -> str:
    name = node.name if isinstance(node, exp.Anonymous) else node.sql_name()
    return name.lower()
