"""The PostgreSQL server that holds a world: named databases, the role checks run as, and cleanup."""

from __future__ import annotations

import re
import threading
import uuid
from collections.abc import Callable
from functools import cached_property
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from assay.world.postgres.values import sqlite_values

PREFIX = re.compile(r"^[a-z][a-z0-9_]{0,19}$")
GONE = (psycopg.errors.DuplicateObject, psycopg.errors.UniqueViolation)


class Server:
    """Connections to one server; `problem(message)` makes the error a user sees when it fails."""

    def __init__(self, url: str, prefix: str, problem: Callable[[str], Exception]):
        self.url = url
        self.prefix = prefix
        self.problem = problem
        self.check_role = f"{prefix}_check"
        self._lock = threading.Lock()
        self._admin: psycopg.Connection[Any] | None = None

    @cached_property
    def adapters(self) -> Any:
        return sqlite_values()

    def conninfo(self, dbname: str | None = None, *, check: bool = False) -> str:
        params = conninfo_to_dict(self.url)
        if dbname is not None:
            params["dbname"] = dbname
        if check:
            params["user"] = self.check_role
            params.pop("password", None)
        return make_conninfo(**params)

    def connect(self, dbname: str, *, check: bool = False) -> psycopg.Connection[Any]:
        """An autocommit connection to `dbname`, as the admin user or as the check role."""
        try:
            return psycopg.connect(
                self.conninfo(dbname, check=check), autocommit=True, context=self.adapters
            )
        except psycopg.OperationalError as error:
            who = f"as {self.check_role} " if check else ""
            raise self.problem(
                f"cannot connect {who}to database {dbname}: {_first(error)}"
            ) from None

    def admin(self) -> psycopg.Connection[Any]:
        """The connection that creates and drops databases (to the database the URL names)."""
        if self._admin is None or self._admin.closed:
            try:
                self._admin = psycopg.connect(self.conninfo(), autocommit=True)
            except psycopg.OperationalError as error:
                raise self.problem(f"cannot connect to PostgreSQL: {_first(error)}") from None
        return self._admin

    def command(self, statement: sql.Composable, params: Any = None) -> list[tuple[Any, ...]]:
        with self._lock:
            cursor = self.admin().execute(statement, params)
            return cursor.fetchall() if cursor.description else []

    def new_name(self, kind: str) -> str:
        return f"{self.prefix}_{kind}_{uuid.uuid4().hex[:16]}"

    def exists(self, name: str) -> bool:
        return bool(self.command(sql.SQL("SELECT 1 FROM pg_database WHERE datname = %s"), [name]))

    def create_database(self, name: str, template: str) -> None:
        self.command(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(name), sql.Identifier(template)
            )
        )

    def create_empty(self, name: str) -> None:
        """A new database that sorts and compares text bytewise, as SQLite does."""
        provider = " LOCALE_PROVIDER libc" if self.admin().info.server_version >= 150000 else ""
        self.command(
            sql.SQL(
                "CREATE DATABASE {} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"
                + provider
            ).format(sql.Identifier(name))
        )

    def drop_database(self, name: str) -> None:
        self.command(sql.SQL("ALTER DATABASE {} IS_TEMPLATE false").format(sql.Identifier(name)))
        self.command(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )

    def drop_copy(self, name: str) -> None:
        self.command(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )

    def ensure_check_role(self) -> None:
        """The login role checks run as: it may read what it is granted, in read-only transactions."""
        role = sql.Identifier(self.check_role)
        if self.command(sql.SQL("SELECT 1 FROM pg_roles WHERE rolname = %s"), [self.check_role]):
            return
        try:
            self.command(
                sql.SQL(
                    "CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION"
                ).format(role)
            )
        except GONE:
            return  # another process made it first
        self.command(sql.SQL("ALTER ROLE {} SET default_transaction_read_only = on").format(role))

    def databases(self) -> list[str]:
        """Every database this prefix named (templates, copies, builds), oldest first."""
        found = self.command(
            sql.SQL("SELECT datname FROM pg_database WHERE datname ~ %s ORDER BY oid"),
            [f"^{self.prefix}_[wrb]_"],
        )
        return [row[0] for row in found]

    def drop_everything(self) -> None:
        """Drop every database and the role this prefix named (templates included)."""
        for name in self.databases():
            self.drop_database(name)
        self.command(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(self.check_role)))

    def close(self) -> None:
        if self._admin is not None:
            self._admin.close()
            self._admin = None


def safe_url(url: str) -> str:
    """The URL without its password, for messages."""
    params = conninfo_to_dict(url)
    params.pop("password", None)
    return make_conninfo(**params)


def _first(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
