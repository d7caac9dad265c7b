"""Static proof that a check's SQL is one read-only statement, before it ever runs."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
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
def readonly_statement(sql: str, backend: str = "sqlite", what: str = "check") -> exp.Expression:
    """Parse `sql` and prove it is exactly one SELECT/WITH statement with no writes in it.

    `what` names the query in messages: a check, or a service's query.
    """
    try:
        with quiet_parser():
            statements = [s for s in sqlglot.parse(sql, read=DIALECTS[backend]) if s is not None]
    except ParseError as error:
        first = error.errors[0] if error.errors else {}
        where = f" at line {first.get('line')}, column {first.get('col')}" if first else ""
        raise UnsafeSql(f"does not parse{where}: {first.get('description', error)}") from None
    if not statements:
        raise UnsafeSql("is empty")
    if len(statements) > 1:
        raise UnsafeSql(f"holds {len(statements)} statements; a {what} is exactly one")
    statement = statements[0]
    if not isinstance(statement, exp.Query):
        kind = _written_kind(sql, backend) or _kind(statement)
        raise UnsafeSql(f"is {_article(kind)} {kind} statement; only SELECT or WITH is allowed")
    for node in statement.walk():
        if isinstance(node, FORBIDDEN):
            raise UnsafeSql(f"contains {_kind(node)}; a {what} may only read")
        if isinstance(node, exp.Func) and _forbidden_function(_function_name(node)):
            raise UnsafeSql(f"calls {_function_name(node)}(), which a {what} may not call")
        if isinstance(node, exp.Table) and _forbidden_function(node.name.lower()):
            raise UnsafeSql(f"calls {node.name.lower()}(), which a {what} may not call")
    _refuse_recursive_limit(statement)
    return statement


def _forbidden_function(name: str) -> bool:
    """A function with effects, or a SQLite pragma's table-valued function (`pragma_table_info`):
    the read-only lock refuses every pragma at run time, so the proof refuses them first."""
    return name in FORBIDDEN_FUNCTIONS or name.startswith("pragma_")


def _refuse_recursive_limit(statement: exp.Expression) -> None:
    """SQLite stops a recursive CTE at a LIMIT (or ORDER BY, OFFSET) in its own body; PostgreSQL
    does not implement that, and checks mean the same on every backend."""
    for cte in statement.find_all(exp.CTE):
        body = cte.this
        within = cte.parent
        if not (isinstance(within, exp.With) and within.args.get("recursive")):
            continue
        if not isinstance(body, exp.SetOperation):
            continue
        name = cte.alias_or_name.lower()
        if not any(table.name.lower() == name for table in body.find_all(exp.Table)):
            continue  # not recursive itself
        clause = next((key for key in ("order", "limit", "offset") if body.args.get(key)), None)
        if clause is not None:
            raise UnsafeSql(
                f"holds {clause.upper()} inside the recursive CTE {cte.alias_or_name}, which "
                "PostgreSQL does not implement; put it in the query that reads the CTE"
            )


def _article(word: str) -> str:
    return "an" if word[:1] in "AEIOU" else "a"


@contextmanager
def quiet_parser() -> Iterator[None]:
    """sqlglot warns on stderr before falling back to a Command; the refusal says it better."""
    logger = logging.getLogger("sqlglot")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _written_kind(sql: str, backend: str) -> str | None:
    """The statement's first keyword as the user wrote it (`REINDEX`, `SAVEPOINT`), comments skipped."""
    try:
        tokens = sqlglot.tokenize(sql, read=DIALECTS[backend])
    except Exception:  # the text parsed, so this is only a fallback for the message
        return None
    word = tokens[0].text.upper() if tokens else ""
    # `WITH … INSERT` is named by what it does, not by the WITH it starts with.
    return word if word.isalpha() and word not in ("WITH", "SELECT") else None


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
