"""Where a world's database lives: SQLite in memory (the default) or a PostgreSQL server.

`World.reset()` and `LiveWorld` talk to a Backend only, so they do not care which one it is.
"""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from assay.errors import SpecError, UsageError
from assay.formats.files import shown
from assay.formats.world import WorldSpec
from assay.world.copies import CopyPool
from assay.world.database import SqliteCopy, WorldCopy
from assay.world.snapshot import Snapshot, load_snapshot

WORLD_DB_ENV = "ASSAY_WORLD_DB"
PREFIX_ENV = "ASSAY_WORLD_DB_PREFIX"
URL_SCHEMES = ("postgresql://", "postgres://")


class Backend(Protocol):
    """Builds the starting state once, then hands out copies of it."""

    name: str

    @property
    def snapshot(self) -> Any:
        """The starting state, built on first use (a SQLite image or a template database)."""
        ...

    def open_copy(self) -> WorldCopy:
        """A fresh, writable copy of the starting state for one task run."""
        ...

    def initial(self) -> WorldCopy:
        """A read-only copy of the starting state that checks may query."""
        ...

    def drop(self, copy: WorldCopy) -> None:
        """The task run is over: release its copy."""
        ...

    def close(self) -> None:
        """Release what the backend holds open between task runs (connections to a server)."""
        ...


class SqliteBackend:
    """Each copy is an in-memory database deserialized from the snapshot's image."""

    name = "sqlite"

    def __init__(self, root: Path, spec: WorldSpec):
        self.root = root
        self.spec = spec

    @cached_property
    def snapshot(self) -> Snapshot:
        return load_snapshot(self.root, self.spec)

    @cached_property
    def copies(self) -> CopyPool:
        return CopyPool(self.snapshot)

    def open_copy(self) -> SqliteCopy:
        return SqliteCopy(self.snapshot, self.copies.take())

    def initial(self) -> SqliteCopy:
        copy = SqliteCopy(self.snapshot)
        copy.lock_readonly()
        return copy

    def drop(self, copy: WorldCopy) -> None:
        """The copy is rolled back for the next task run, or closed (`assay.world.copies`)."""
        assert isinstance(copy, SqliteCopy)
        settled = copy.settled
        connection = copy.release()
        if connection is not None:  # dropped once already
            self.copies.give_back(connection, settled)

    def close(self) -> None:
        """Close the idle copies kept for later task runs; the next one deserializes anew."""
        copies = self.__dict__.pop("copies", None)
        if copies is not None:
            copies.close()


def open_backend(root: Path, spec: WorldSpec, world_db: str | None = None) -> Backend:
    """The backend for a world: `world_db` (`--world-db`), else $ASSAY_WORLD_DB, else world.toml."""
    url, problem = world_db, _option_problem("--world-db")
    if url is None and os.environ.get(WORLD_DB_ENV):
        url, problem = os.environ[WORLD_DB_ENV], _option_problem(WORLD_DB_ENV)
    if url is None and spec.database.backend == "postgresql":
        url, problem = "", _file_problem(shown(root / "world.toml"))
    if url is None:
        return SqliteBackend(root, spec)
    if url and not url.startswith(URL_SCHEMES):
        raise problem(f"not a PostgreSQL URL: {url!r} (postgresql://user@host:port/database)")
    prefix = os.environ.get(PREFIX_ENV) or "assay"
    from assay.world.postgres.backend import PostgresBackend  # psycopg only when asked for

    return PostgresBackend(root, spec, url, prefix, problem)


def _option_problem(option: str) -> Any:
    return lambda message: UsageError(f"{option}: {message}")


def _file_problem(file: str) -> Any:
    return lambda message: SpecError(file, "database.backend", message)
