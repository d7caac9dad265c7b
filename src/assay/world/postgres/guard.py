"""Checks on PostgreSQL: a login role that may only SELECT, one query in a read-only transaction.

The static proof in `formats.sqltext` refuses writes before a check runs; this guard does not rely on
it. The role holds SELECT grants and nothing else; each query runs through a cursor (`DECLARE …
CURSOR FOR`, which takes one SELECT and nothing else) inside `BEGIN READ ONLY`, after a first
query has fixed the snapshot, so neither `SET TRANSACTION READ WRITE` nor
`set_config('transaction_read_only', ...)` can lift it; `statement_timeout` stops it in time,
`work_mem` bounds its sorts and hashes, only the rows asked for are fetched, and a row over 16 MB
stops it before it is sent.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import errors

from assay.world.database import Params, Queries, Written
from assay.world.guard import QueryFailed, QueryLimit, QueryRefused, QueryTimeout
from assay.world.limits import VALUE_LIMIT
from assay.world.postgres.translate import TranslationError, Translator

Rows = tuple[list[str], list[tuple[Any, ...]]]

WORK_MEM = "4MB"  # per sort or hash of a check, whatever the server's own setting
BEGIN = (
    "BEGIN TRANSACTION READ ONLY; SELECT set_config('statement_timeout', '{ms}', true), "
    f"set_config('work_mem', '{WORK_MEM}', true)"
)
# Every row is measured before it leaves the server; the template defines the function that stops it.
DECLARE = (
    "DECLARE assay_read NO SCROLL CURSOR FOR SELECT * FROM ({}) AS assay_row"
    " WHERE public.sandbox_row_fits(pg_column_size(assay_row.*))"
)
ROW_CAP = f"""
CREATE FUNCTION public.sandbox_row_fits(size integer) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    IF size > {VALUE_LIMIT} THEN
        RAISE EXCEPTION 'a row passed the {VALUE_LIMIT >> 20} MB limit'
            USING ERRCODE = 'program_limit_exceeded';
    END IF;
    RETURN true;
END $$
"""
REFUSALS = (
    errors.ReadOnlySqlTransaction,
    errors.InsufficientPrivilege,
    errors.ActiveSqlTransaction,
    errors.InvalidTransactionState,
)
# Insufficient resources (53…) and program limits (54…): the query asked for more than it may have.
LIMIT_CLASSES = ("53", "54")


class ReadOnlyDatabase(Queries):
    """A connection as the check role: the Database reading methods, and nothing that writes."""

    backend = "postgresql"

    def __init__(self, connection: psycopg.Connection[Any], translator: Translator):
        self.connection = connection
        self.translator = translator

    def run_limited(
        self, seconds: float | None, sql: str, params: Params, max_rows: int | None = None
    ) -> Rows:
        """Run one query alone in a read-only transaction, stopped after `seconds`.

        Only its first `max_rows` rows (all when None) leave the server.
        """
        try:
            statement = self.translator.translate(sql)
            values = statement.bind(params)
        except TranslationError as error:
            raise QueryFailed(str(error)) from None
        if statement.count > 1:
            raise QueryRefused("refused: one statement at a time")
        if not statement.query:
            raise QueryRefused(f"refused: only a query may run here, not {_verb(sql)}")
        milliseconds = 0 if seconds is None else max(1, round(seconds * 1000))
        self.connection.execute(BEGIN.format(ms=milliseconds))
        try:
            self.connection.execute(DECLARE.format(statement.text), values, prepare=True)
            size = "ALL" if max_rows is None else str(max_rows)
            cursor = self.connection.execute(f"FETCH FORWARD {size} FROM assay_read")
            return [column.name for column in cursor.description or ()], cursor.fetchall()
        except errors.QueryCanceled:
            raise QueryTimeout(f"stopped after {seconds:g}s") from None
        except REFUSALS as error:
            raise QueryRefused(f"refused: {_first(error)}") from None
        except psycopg.Error as error:
            raise _stopped_or_failed(error) from None
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


def _stopped_or_failed(error: psycopg.Error) -> QueryRefused | QueryLimit | QueryFailed:
    text = _first(error)
    if "multiple commands" in text:
        return QueryRefused("refused: one statement at a time")
    if "data-modifying" in text:  # a cursor takes no DELETE … RETURNING in its WITH
        return QueryRefused(f"refused: {text}")
    if (error.sqlstate or "")[:2] in LIMIT_CLASSES:
        return QueryLimit(f"stopped: {text}")
    return QueryFailed(text)


def _verb(sql: str) -> str:
    words = sql.split()
    return words[0].upper() if words else "nothing"


def _first(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
