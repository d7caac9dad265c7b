"""The PostgreSQL server that holds a world: named databases, the role checks run as, and cleanup."""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
import uuid
from collections.abc import Callable
from contextlib import suppress
from functools import cached_property
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from assay.world.postgres.values import sqlite_values

PREFIX = re.compile(r"^[a-z][a-z0-9_]{0,19}$")
GONE = (psycopg.errors.DuplicateObject, psycopg.errors.UniqueViolation)
LIMITED = "NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
Login = tuple[str, str]  # a role and its password


class Server:
    """Connections to one server; `problem(message)` makes the error a user sees when it fails."""

    def __init__(self, url: str, prefix: str, problem: Callable[[str], Exception]):
        self.url = url
        self.prefix = prefix
        self.problem = problem
        self.check_role = f"{prefix}_check"
        self.world_role = f"{prefix}_world"  # each task run's role is a member
        self._lock = threading.Lock()
        self._admin: psycopg.Connection[Any] | None = None

    @cached_property
    def check_password(self) -> str:
        """The check role's password: derived from the admin's URL (its password with it), so that
        every process given that URL logs in as the check role, and no one without it; a server
        that asks every role for a password (no `trust` in pg_hba.conf) needs one."""
        return hashlib.sha256(f"assay-check\0{self.url}\0{self.check_role}".encode()).hexdigest()

    @cached_property
    def adapters(self) -> Any:
        return sqlite_values()

    def conninfo(
        self, dbname: str | None = None, *, check: bool = False, login: Login | None = None
    ) -> str:
        """The URL's parameters, for `dbname`, as the check role or as a task run's `login`."""
        params = conninfo_to_dict(self.url)
        if dbname is not None:
            params["dbname"] = dbname
        if check:
            params["user"], params["password"] = self.check_role, self.check_password
        if login is not None:
            params["user"], params["password"] = login
        return make_conninfo(**params)

    def connect(
        self, dbname: str, *, check: bool = False, login: Login | None = None
    ) -> psycopg.Connection[Any]:
        """An autocommit connection to `dbname`: as the admin, the check role or a task run's role."""
        try:
            return psycopg.connect(
                self.conninfo(dbname, check=check, login=login),
                autocommit=True,
                context=self.adapters,
            )
        except psycopg.OperationalError as error:
            who = self.check_role if check else login[0] if login else None
            where = f"as {who} to database {dbname}" if who else f"to database {dbname}"
            raise self.problem(f"cannot connect {where}: {_first(error)}") from None

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

    def create_copy(self, name: str, template: str) -> Login:
        """A task run's database and its own login role (the same name), which only it may enter."""
        login = (name, secrets.token_urlsafe(24))
        self.command(
            sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} " + LIMITED + " INHERIT IN ROLE {}").format(
                sql.Identifier(name), sql.Literal(login[1]), sql.Identifier(self.world_role)
            )
        )
        try:
            self.create_database(name, template)
            self.connect_only(name, name, self.check_role)
        except BaseException:
            self.drop_copy(name)
            raise
        return login

    def connect_only(self, database: str, *roles: str) -> None:
        """Only `roles` (and the admin) may connect to `database`; a new one lets PUBLIC in."""
        self.command(
            sql.SQL("REVOKE ALL ON DATABASE {} FROM PUBLIC").format(sql.Identifier(database))
        )
        self.command(
            sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(
                sql.Identifier(database), sql.SQL(", ").join(map(sql.Identifier, roles))
            )
        )

    def drop_copy(self, name: str) -> None:
        """Drop a task run's database, then its role."""
        self.command(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        with suppress(psycopg.errors.DependentObjectsStillExist):  # drop_everything retries
            self.command(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(name)))

    def ensure_roles(self) -> None:
        """The check role (logs in, reads, read-only by default) and the task runs' world role."""
        check, world = sql.Identifier(self.check_role), sql.Identifier(self.world_role)
        if self._missing(self.world_role):
            with suppress(*GONE):  # another process made it first
                self.command(sql.SQL("CREATE ROLE {} NOLOGIN " + LIMITED).format(world))
        password = sql.Literal(self.check_password)
        if not self._missing(self.check_role):
            # made by an older assay without a password; another process may be setting it now
            with suppress(psycopg.errors.InternalError_):
                self.command(sql.SQL("ALTER ROLE {} PASSWORD {}").format(check, password))
            return
        try:
            self.command(
                sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} " + LIMITED + " NOINHERIT").format(
                    check, password
                )
            )
        except GONE:
            return  # another process made it first
        self.command(sql.SQL("ALTER ROLE {} SET default_transaction_read_only = on").format(check))

    def _missing(self, role: str) -> bool:
        return not self.command(sql.SQL("SELECT 1 FROM pg_roles WHERE rolname = %s"), [role])

    def databases(self) -> list[str]:
        """Every database this prefix named (templates, copies, builds), oldest first."""
        found = self.command(
            sql.SQL("SELECT datname FROM pg_database WHERE datname ~ %s ORDER BY oid"),
            [f"^{self.prefix}_[wrb]_"],
        )
        return [row[0] for row in found]

    def drop_everything(self) -> None:
        """Drop every database and every role this prefix named (templates included)."""
        for name in self.databases():
            self.drop_database(name)
        found = self.command(
            sql.SQL("SELECT rolname FROM pg_roles WHERE rolname ~ %s ORDER BY oid"),
            [f"^{self.prefix}_r_"],
        )
        for role in [row[0] for row in found] + [self.world_role, self.check_role]:
            self.command(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))

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
