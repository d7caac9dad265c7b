"""Worlds on PostgreSQL: each task run gets `CREATE DATABASE … TEMPLATE` and drops it after."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import psycopg

from assay.errors import EnvironmentFailure
from assay.formats.world import WorldSpec
from assay.world.database import ChangedRows, Params, Written
from assay.world.digest import combine
from assay.world.guard import QueryRefused
from assay.world.postgres import changes
from assay.world.postgres.database import PostgresDatabase
from assay.world.postgres.guard import ReadOnlyDatabase, Rows
from assay.world.postgres.schema import primary_keys
from assay.world.postgres.server import PREFIX, Login, Server
from assay.world.postgres.template import (
    Template,
    discard,
    intact,
    load_template,
    table_digest,
)
from assay.world.postgres.translate import Translator
from assay.world.seed import first_line


class PostgresBackend:
    """A template database per version of the world's data; a database per task run."""

    name = "postgresql"

    def __init__(
        self,
        root: Path,
        spec: WorldSpec,
        url: str,
        prefix: str,
        problem: Callable[[str], Exception],
    ):
        if not PREFIX.match(prefix):
            from assay.errors import UsageError

            raise UsageError(
                f"ASSAY_WORLD_DB_PREFIX: {prefix!r} must be a lowercase letter then up to 19 "
                "lowercase letters, digits or _"
            )
        self.root = root
        self.spec = spec
        self.server = Server(url, prefix, problem)
        self._checked = False  # whether a copy of the template was checked against its digests

    @cached_property
    def snapshot(self) -> Template:
        return load_template(self.server, self.root, self.spec)

    @cached_property
    def translator(self) -> Translator:
        return Translator(self.snapshot.rowids, primary_keys(self.root, self.spec))

    def open_copy(self) -> PostgresCopy:
        """A database of its own for one task run; EnvironmentFailure if the server refuses.

        The first copy a process makes of the template is checked against the template's digests
        before anyone uses it; a template changed since it was built is built again."""
        name = self.server.new_name("r")
        try:
            login = self.server.create_copy(name, self.snapshot.name)
        except psycopg.Error as error:
            raise EnvironmentFailure(f"CREATE DATABASE failed: {first_line(error)}") from None
        try:
            if not self._checked and not self._copy_intact(name):
                self.server.drop_copy(name)
                discard(self.server, self.snapshot)
                for built in ("snapshot", "translator"):
                    self.__dict__.pop(built, None)
                return self.open_copy()
            return PostgresCopy(self, name, login)
        except BaseException:
            self.server.drop_copy(name)
            raise

    def _copy_intact(self, name: str) -> bool:
        self._checked = True
        connection = self.server.connect(name)
        try:
            return intact(connection, self.snapshot)
        finally:
            connection.close()

    def initial(self) -> ReadOnlyDatabase:
        connection = self.server.connect(self.snapshot.initial, check=True)
        return ReadOnlyDatabase(connection, self.translator)

    def drop(self, copy: Any) -> None:
        copy.close()

    def close(self) -> None:
        self.server.close()


class PostgresCopy(PostgresDatabase):
    """One task run's database: written as its own role, then read-only as the check role."""

    def __init__(self, backend: PostgresBackend, name: str, login: Login):
        super().__init__(backend.server.connect(name, login=login), backend.translator)
        self.source = backend  # not `backend`: that names the kind of database, as on SQLite
        self.name = name
        self.reader: ReadOnlyDatabase | None = None

    def lock_readonly(self) -> None:
        """From now on only the check role reads it; the world's connection is closed."""
        if self.reader is None:
            self.connection.close()
            server = self.source.server
            self.reader = ReadOnlyDatabase(server.connect(self.name, check=True), self.translator)

    def may_have_changed(self, table: str) -> bool:
        """Always: a trigger may write tables that no statement names (`template.indirect`)."""
        return True

    def changed_rows(self, keys: Mapping[str, Sequence[str]]) -> dict[str, ChangedRows]:
        """None logged: every table is compared whole."""
        return {}

    def _reading(self) -> ReadOnlyDatabase:
        if self.reader is None:
            raise QueryRefused("refused: lock the copy before running checks")
        return self.reader

    def execute(self, sql: str, *params: Any) -> Written:
        if self.reader is not None:
            raise QueryRefused("refused: the world is read-only now")
        return super().execute(sql, *params)

    def execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if self.reader is not None:
            raise QueryRefused("refused: the world is read-only now")
        super().execute_many(sql, rows)

    def fetch(self, sql: str, params: Params) -> Rows:
        if self.reader is not None:
            return self.reader.fetch(sql, params)
        return super().fetch(sql, params)

    def run_limited(
        self, seconds: float, sql: str, params: Params, max_rows: int | None = None
    ) -> Rows:
        return self._reading().run_limited(seconds, sql, params, max_rows)

    def table_rows(self, table: str, limit: int) -> Rows:
        count = "ALL" if limit < 0 else int(limit)  # PostgreSQL refuses a negative LIMIT
        return self.fetch(f'SELECT * FROM "{table}" LIMIT {count}', ())

    def state_hash(self, *, full: bool = False) -> str:
        """Content hash of the copy, equal to SQLite's for the same content: the template's
        digests brought up to date from the rows that changed, or with `full` every table written
        to (every table, where writes reach tables a statement does not name) read whole."""
        template = self.source.snapshot
        digests = dict(template.digests)
        connection = self.reader.connection if self.reader is not None else self.connection
        with connection.transaction():
            if not full:
                changes.updated_digests(connection, digests, template.deltas)
                return combine(digests)
            changed = digests.keys() if template.indirect else self.written & digests.keys()
            for table in changed:
                digests[table] = table_digest(connection, table)
        return combine(digests)

    def close(self) -> None:
        for connection in (self.connection, self.reader.connection if self.reader else None):
            if connection is not None and not connection.closed:
                connection.close()
        self.source.server.drop_copy(self.name)
