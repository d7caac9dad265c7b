"""Where the records live: the store URL from `--store`, `ASSAY_STORE` or the default file."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote

from assay.errors import UsageError

if TYPE_CHECKING:  # imported when a URL needs it: an SQLite file's path or plain URL does not
    import sqlite3

    from sqlalchemy import Connection, Engine
    from sqlalchemy.engine import URL

ENVIRONMENT = "ASSAY_STORE"
HOME = "ASSAY_HOME"  # snapshots live there too; `.assay` in the working directory by default
BACKENDS = ("sqlite", "postgresql")
SQLITE = "sqlite:///"


@dataclass(frozen=True)
class Location:
    """A parsed store URL and the parameter it came from, to name in errors: an SQLite `file`, or
    any other URL as SQLAlchemy parsed it."""

    parameter: str
    file: str | None = None
    parsed: URL | None = None

    @property
    def url(self) -> URL:
        if self.parsed is not None:
            return self.parsed
        from sqlalchemy.engine import URL

        return URL.create("sqlite", database=self.file)

    @property
    def shown(self) -> str:
        if self.parsed is None:  # as SQLAlchemy renders the URL
            return SQLITE + quote(str(self.file), safe=" +/")
        return self.parsed.render_as_string(hide_password=True)

    def refuse(self, message: str) -> UsageError:
        return UsageError(f"{self.parameter}: {message}")


def locate(option: str | None = None) -> Location:
    """The store named by the option, else by ASSAY_STORE, else `$ASSAY_HOME/assay.db`."""
    if option:
        return parse(option, "--store")
    if os.environ.get(ENVIRONMENT):
        return parse(os.environ[ENVIRONMENT], ENVIRONMENT)
    return Location("--store", file=str(default_file()))


def default_file() -> Path:
    """`assay.db` in `$ASSAY_HOME`, which is `.assay` in the working directory unless set."""
    return Path(os.environ.get(HOME, ".assay")) / "assay.db"


def parse(text: str, parameter: str) -> Location:
    """A URL, or a plain path taken as an SQLite file; `postgresql://` means psycopg 3."""
    if "://" not in text:
        return Location(parameter, file=text)
    named = text.removeprefix(SQLITE)
    if text.startswith(SQLITE) and "?" not in named and unquote(named) not in ("", ":memory:"):
        return Location(parameter, file=unquote(named))  # as SQLAlchemy's URL would read it
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(text)
    except ArgumentError:
        raise UsageError(f"{parameter}: {text!r} is not a database URL") from None
    backend = url.get_backend_name()
    if backend not in BACKENDS:
        raise UsageError(
            f"{parameter}: unsupported database {backend!r}; "
            "use sqlite:///FILE or postgresql+psycopg://USER@HOST:PORT/DB"
        )
    if backend == "sqlite" and url.database in (None, "", ":memory:"):
        raise UsageError(f"{parameter}: an in-memory SQLite store keeps nothing; name a file")
    if url.drivername == "postgresql":
        url = url.set(drivername="postgresql+psycopg")
    return Location(parameter, parsed=url)


def connect(location: Location) -> Engine:
    """An engine for the location; an SQLite file gets its folder, WAL and real transactions."""
    from sqlalchemy import create_engine, event

    url = location.url
    if url.get_backend_name() != "sqlite":
        return create_engine(url)
    assert url.database is not None
    Path(url.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url)
    event.listen(engine, "connect", _sqlite_connected)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_connected(connection: sqlite3.Connection, _record: object) -> None:
    # The driver's own transaction handling leaves DDL outside transactions; take it over.
    connection.isolation_level = None
    cursor = connection.cursor()
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.execute("PRAGMA busy_timeout = 10000")
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute("PRAGMA synchronous = NORMAL")  # with WAL, safe against a killed process
    cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    connection.exec_driver_sql("BEGIN")
