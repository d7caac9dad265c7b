"""The starting state on PostgreSQL: a template database built once per version of the data files.

It is built under a temporary name and renamed when complete, so a process never sees half of one;
its metadata (columns, content digests, rowid columns) rides in the database's comment.
"""

from __future__ import annotations

import json
import sys
from contextlib import suppress
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from psycopg import errors, sql

from assay.errors import SpecError
from assay.formats.files import read_text, shown
from assay.formats.world import RESERVED_PREFIX, WorldSpec
from assay.world.digest import digest_rows
from assay.world.postgres import changes
from assay.world.postgres.database import PostgresDatabase
from assay.world.postgres.guard import ROW_CAP
from assay.world.postgres.roles import grant_and_revoke
from assay.world.postgres.schema import SchemaError, rowid_triggers, translate_schema
from assay.world.postgres.server import Server
from assay.world.postgres.translate import Translator
from assay.world.reserved import POSTGRES_DDL, RESERVED_ROWIDS, RESERVED_TABLES
from assay.world.seed import first_line, load_seed
from assay.world.snapshot import seed_services, service_tables, snapshot_key

BACKEND = "postgresql-4"  # bump when the translation changes what a template holds

TABLES = "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
COLUMNS = (
    "SELECT column_name FROM information_schema.columns "
    "WHERE table_schema = 'public' AND table_name = %s ORDER BY ordinal_position"
)
# Writes that reach tables a statement does not name: user triggers and cascading foreign keys.
INDIRECT = (
    "SELECT (SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal AND tgname <> 'sandbox_rowid')"
    " + (SELECT count(*) FROM pg_constraint WHERE contype = 'f'"
    " AND (confdeltype NOT IN ('a', 'r') OR confupdtype NOT IN ('a', 'r')))"
)


@dataclass(frozen=True)
class Template:
    key: str
    name: str
    initial: str
    columns: dict[str, list[str]]
    digests: dict[str, str]
    rowids: dict[str, str]
    indirect: bool
    deltas: dict[str, str]  # each table's delta table, which its change triggers fill

    def meta(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


def template_name(server: Server, spec: WorldSpec, key: str) -> str:
    world = "".join(c if c.isalnum() else "_" for c in spec.name.lower())[:16]
    return f"{server.prefix}_w_{world}_{key[:16]}"


def load_template(server: Server, root: Path, spec: WorldSpec) -> Template:
    """The world's template database: found on the server, else built now."""
    key = snapshot_key(root, spec, BACKEND)
    name = template_name(server, spec, key)
    server.ensure_roles()
    template = _read(server, name, key) or _build(server, root, spec, key, name)
    if not server.exists(template.initial):
        with suppress(errors.DuplicateDatabase):  # another process made it first
            server.create_database(template.initial, template.name)
            server.connect_only(template.initial, server.check_role)
    return template


def intact(connection: Any, template: Template) -> bool:
    """Whether a database copied from `template` just now holds what the template's digests say
    (no one may connect to a template itself): a changed template is no snapshot to reset from."""
    return all(
        table_digest(connection, table) == digest for table, digest in template.digests.items()
    )


def discard(server: Server, template: Template) -> None:
    """Drop a template that is not the one built (and its initial copy), with a note."""
    print(f"note: template database {template.name} is not the one built: building it again",
          file=sys.stderr)  # fmt: skip
    server.drop_database(template.initial)
    server.drop_database(template.name)


def _read(server: Server, name: str, key: str) -> Template | None:
    found = server.command(
        sql.SQL("SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s"),
        [name],
    )
    if not found or not found[0][0]:
        return None
    try:
        meta: dict[str, Any] = json.loads(found[0][0])
        template = Template(**meta)
    except (ValueError, TypeError):
        return None
    return template if template.key == key else None


def _build(server: Server, root: Path, spec: WorldSpec, key: str, name: str) -> Template:
    building = server.new_name("b")
    server.create_empty(building)
    try:
        connection = server.connect(building)
        try:
            template = _fill(server, PostgresDatabase(connection, Translator({})), root, spec)
        finally:
            connection.close()
        template = Template(key=key, name=name, initial=f"{name}_i", **template)
        identifier = sql.Identifier(building)
        server.command(
            sql.SQL("COMMENT ON DATABASE {} IS {}").format(identifier, sql.Literal(template.meta()))
        )
        server.command(
            sql.SQL("ALTER DATABASE {} IS_TEMPLATE true ALLOW_CONNECTIONS false").format(identifier)
        )
        server.command(
            sql.SQL("ALTER DATABASE {} RENAME TO {}").format(identifier, sql.Identifier(name))
        )
        return template
    except errors.DuplicateDatabase:
        server.drop_database(building)  # another process built it first
        found = _read(server, name, key)
        if found is None:
            raise
        return found
    except BaseException:
        server.drop_database(building)
        raise


def _fill(server: Server, db: PostgresDatabase, root: Path, spec: WorldSpec) -> dict[str, Any]:
    """Schema, reserved tables and seeds into an empty database; its metadata."""
    world_file = shown(root / "world.toml")
    path = root / spec.database.schema_file
    if not path.is_file():
        raise SpecError(world_file, "database.schema", f"{shown(path)} not found")
    try:
        schema = translate_schema(read_text(path))
    except SchemaError as error:
        raise SpecError(shown(path), None, f"schema failed: {error}") from None
    _run_schema(db, schema.statements, path)
    reserved = [t for t in _tables(db) if t.startswith(RESERVED_PREFIX)]
    if reserved:
        raise SpecError(shown(path), None, f"table {reserved[0]} uses the reserved prefix sandbox_")
    rowids = {**schema.rowids, **RESERVED_ROWIDS}
    _run_schema(db, [POSTGRES_DDL, *rowid_triggers(rowids)], path)
    db.translator = Translator(rowids, schema.keys)
    for name in spec.database.seed:
        load_seed(db, root / name)
    for table in RESERVED_TABLES:
        if db.value(f"SELECT count(*) FROM {table}"):
            raise SpecError(world_file, "database.seed", f"seeds may not fill {table}")
    rowids |= _service_tables(db, root, spec, path)
    db.translator = Translator(rowids, schema.keys)
    seed_services(db, root, spec)
    tables = _tables(db)
    meta = {
        "columns": {table: _columns(db, table) for table in tables},
        "digests": {table: table_digest(db.connection, table) for table in tables},
        "rowids": rowids,
        "indirect": bool(db.connection.execute(INDIRECT).fetchone()[0]),  # type: ignore[index]
    }
    meta["deltas"] = changes.install(db.connection, tables)  # after the digests: not state
    db.connection.execute(ROW_CAP)
    grant_and_revoke(db.connection, server.check_role, server.world_role)
    return meta


def _service_tables(
    db: PostgresDatabase, root: Path, spec: WorldSpec, path: Path
) -> dict[str, str]:
    """The reserved tables of the world's service kinds; their autonumbered ids, by table."""
    rowids: dict[str, str] = {}
    for dialect, ddl in service_tables(root, spec, "postgresql"):
        if dialect == "postgresql":
            _run_schema(db, [ddl], path)
            continue
        try:
            schema = translate_schema(ddl)
        except SchemaError as error:
            raise SpecError(shown(path), None, f"a service's tables failed: {error}") from None
        _run_schema(db, [*schema.statements, *rowid_triggers(schema.rowids)], path)
        rowids.update(schema.rowids)
    return rowids


def _run_schema(db: PostgresDatabase, statements: list[str], path: Path) -> None:
    for statement in statements:
        try:
            db.connection.execute(statement)
        except db.errors as error:
            raise SpecError(shown(path), None, f"schema failed: {first_line(error)}") from None


def _columns(db: PostgresDatabase, table: str) -> list[str]:
    return [row[0] for row in db.connection.execute(COLUMNS, [table]).fetchall()]


def _tables(db: PostgresDatabase) -> list[str]:
    return [row[0] for row in db.connection.execute(TABLES).fetchall()]


def table_digest(connection: Any, table: str) -> str:
    """The same order-free digest SQLite's snapshot uses, of the same values."""
    statement = sql.SQL("SELECT * FROM {}").format(sql.Identifier(table))
    return digest_rows(connection.execute(statement).fetchall())
