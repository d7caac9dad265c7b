"""Checks on PostgreSQL: a login role that may only SELECT, one statement in a read-only transaction.

The static proof in `spec.sqltext` refuses writes before a check runs; this guard does not rely on
it. The role holds SELECT grants and nothing else; each query runs prepared (so exactly one
statement) inside `BEGIN READ ONLY`, after a first query has fixed the snapshot, so neither
`SET TRANSACTION READ WRITE` nor `set_config('transaction_read_only', ...)` can lift it; and
`statement_timeout` stops it in time.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import errors

from assay.world.database import Params, Queries, Written
from assay.world.guard import QueryFailed, QueryRefused, QueryTimeout
from assay.world.postgres.translate import TranslationError, Translator

Rows = tuple[list[str], list[tuple[Any, ...]]]

BEGIN = "BEGIN TRANSACTION READ ONLY; SELECT set_config('statement_timeout', '{ms}', true)"
REFUSALS = (
    errors.ReadOnlySqlTransaction,
    errors.InsufficientPrivilege,
    errors.ActiveSqlTransaction,
    errors.InvalidTransactionState,
)


class ReadOnlyDatabase(Queries):
    """A connection as the check role: the Database reading methods, and nothing that writes."""

    backend = "postgresql"

    def __init__(self, connection: psycopg.Connection[Any], translator: Translator):
        self.connection = connection
        self.translator = translator

    def run_limited(self, seconds: float | None, sql: str, params: Params) -> Rows:
        """Run one query alone in a read-only transaction, stopped after `seconds`."""
        try:
            statement = self.translator.translate(sql)
            values = statement.bind(params)
        except TranslationError as error:
            raise QueryFailed(str(error)) from None
        milliseconds = 0 if seconds is None else max(1, round(seconds * 1000))
        self.connection.execute(BEGIN.format(ms=milliseconds))
        try:
            cursor = self.connection.execute(statement.text, values, prepare=True)
            names = [column.name for column in cursor.description or ()]
            return names, cursor.fetchall() if cursor.description else []
        except errors.QueryCanceled:
            raise QueryTimeout(f"stopped after {seconds:g}s") from None
        except REFUSALS as error:
            raise QueryRefused(f"refused: {_first(error)}") from None
        except psycopg.Error as error:
            if "multiple commands" in str(error):
                raise QueryRefused("refused: one statement at a time") from None
            raise QueryFailed(_first(error)) from None
        finally:
            self.connection.execute("ROLLBACK")

    def fetch(self, sql: str, params: Params) -> Rows:
        return self.run_limited(None, sql, params)

    def execute(self, sql: str, *params: Any) -> Written:
        raise QueryRefused("refused: the world is read-only now")

    def lock_readonly(self) -> None:
        """It is read-only already."""

    def close(self) -> None:
        self.connection.close()


def _first(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
