"""The Database methods on PostgreSQL, taking the SQLite-dialect SQL that tools and checks write."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg

from assay.world.database import Params, Queries, Written, bind
from assay.world.postgres.translate import Statement, TranslationError, Translator

Rows = tuple[list[str], list[tuple[Any, ...]]]


class PostgresDatabase(Queries):
    """A connection with the Database methods; each statement is translated once per world."""

    backend = "postgresql"
    errors: tuple[type[Exception], ...] = (psycopg.Error, TranslationError)

    def __init__(self, connection: psycopg.Connection[Any], translator: Translator):
        self.connection = connection
        self.translator = translator
        self.written: set[str] = set()
        self._last_rowid: int | None = None

    def _run(self, sql: str, params: Params) -> tuple[Statement, psycopg.Cursor[Any]]:
        statement = self.translator.translate(sql)
        self.written |= statement.writes
        return statement, self.connection.execute(statement.text, statement.bind(params))

    def execute(self, sql: str, *params: Any) -> Written:
        statement, cursor = self._run(sql, bind(params))
        if statement.returning:
            numbered = cursor.fetchall()
            if numbered:
                self._last_rowid = numbered[-1][0]
        return Written(cursor.rowcount, self._last_rowid)

    def execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        statement = self.translator.translate(sql)
        self.written |= statement.writes
        with self.connection.cursor() as cursor:
            cursor.executemany(statement.text, [statement.bind(row) for row in rows])

    def run_script(self, text: str) -> None:
        """Run every statement of a script (seed files); translated whole, not cached."""
        statement = self.translator.translate.__wrapped__(text)
        self.written |= statement.writes
        self.connection.execute(statement.text)

    def fetch(self, sql: str, params: Params) -> Rows:
        _, cursor = self._run(sql, params)
        names = [column.name for column in cursor.description or ()]
        return names, cursor.fetchall() if cursor.description else []

    @contextmanager
    def savepoint(self) -> Iterator[None]:
        """Everything inside is undone if it raises."""
        with self.connection.transaction():
            yield

    def close(self) -> None:
        self.connection.close()
