"""The store's schema, kept by the Alembic migrations shipped in this package, run on first use."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Connection, Engine, inspect, text

from assay.runs.store.location import Location
from assay.runs.store.tables import HEAD

MIGRATIONS = Path(__file__).parent / "migrations"


def revisions(connection: Connection) -> set[str]:
    """The revisions the store is at; empty for a new store."""
    if not inspect(connection).has_table("alembic_version"):
        return set()
    return {row[0] for row in connection.execute(text("SELECT version_num FROM alembic_version"))}


def upgrade(engine: Engine, location: Location) -> None:
    """Bring the store to the newest schema, in one transaction; refuse a store that is newer."""
    with engine.connect() as connection:
        if revisions(connection) == {HEAD}:
            return
    from alembic import command
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    script = ScriptDirectory.from_config(config)
    with engine.begin() as connection:
        for revision in revisions(connection):
            try:
                script.get_revision(revision)
            except CommandError:
                raise location.refuse(
                    f"{location.shown} has schema revision {revision!r}, "
                    "newer than this version of assay knows"
                ) from None
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
