"""The store's schema, kept by the Alembic migrations shipped in this package, run on first use."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import (
    Column,
    Connection,
    Engine,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    inspect,
    text,
)

from assay.runs.store.location import Location
from assay.runs.store.tables import HEAD, metadata

MIGRATIONS = Path(__file__).parent / "migrations"

# Alembic's own table, as Alembic makes it.
ALEMBIC_VERSION = Table(
    "alembic_version",
    MetaData(),
    Column("version_num", String(32), nullable=False),
    PrimaryKeyConstraint("version_num", name="alembic_version_pkc"),
)


def revisions(connection: Connection) -> set[str]:
    """The revisions the store is at; empty for a new store."""
    if not inspect(connection).has_table("alembic_version"):
        return set()
    return {row[0] for row in connection.execute(text("SELECT version_num FROM alembic_version"))}


def upgrade(engine: Engine, location: Location) -> None:
    """Bring the store to the newest schema, in one transaction; refuse a store that is newer.
    A store with no tables at all is made from the tables' definitions and stamped with the newest
    revision, sparing Alembic's import (their sameness with the migrations is tested)."""
    with engine.connect() as connection:
        found = revisions(connection)
        if found == {HEAD}:
            return
        empty = not found and not inspect(connection).get_table_names()
    if empty:
        create_newest(engine)
    else:
        migrate(engine, location)


def create_newest(engine: Engine) -> None:
    """The newest schema in an empty store, in one transaction, as the migrations would leave it."""
    with engine.begin() as connection:
        metadata.create_all(connection, checkfirst=False)
        ALEMBIC_VERSION.create(connection)
        connection.execute(ALEMBIC_VERSION.insert().values(version_num=HEAD))


def migrate(engine: Engine, location: Location) -> None:
    """Run the Alembic migrations the store lacks."""
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
