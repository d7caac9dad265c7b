"""A world's starting state, built once per version of its data files and copied for every reset."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import SpecError
from assay.formats.files import read_text, shown
from assay.formats.world import RESERVED_PREFIX, WorldSpec
from assay.world import changes
from assay.world.database import ChangedRows, SqliteDatabase
from assay.world.digest import combine, digest_rows, row_text, text_hash, updated
from assay.world.guard import OWN_MARK, GatedConnection
from assay.world.readers import Readers
from assay.world.reserved import RESERVED_TABLES, SQLITE_DDL
from assay.world.seed import SeedTarget, load_seed

if TYPE_CHECKING:
    from assay.world.services.base import Service

FORMAT = "assay-snapshot-3"  # 3: multiset digests, change triggers
# A table read whole at the final-state hash keeps its starting rows' hashes if it has at most this
# many rows: most of its rows are the ones it started with, looked up rather than hashed again.
KNOWN_ROWS_UP_TO = 4096
# A copy's page cache, in KiB: a page it misses is copied from its own image in memory, cheaply,
# and each copy holding up to SQLite's default 2 MiB of pages would double a scanned world's size
# (a task run in flight each: an OpenEnv server's thousand sessions).
COPY_CACHE_KIB = 256


@dataclass(frozen=True)
class Snapshot:
    key: str
    image: bytes = field(repr=False)
    columns: dict[str, tuple[str, ...]]
    digests: dict[str, str]
    tracked: frozenset[str] = frozenset()  # tables whose changed rowids triggers log
    # read-only copies of the starting state, for the rows before they changed
    _readers: Readers = field(default_factory=Readers, compare=False, repr=False)
    # by table: each starting row's hash by its text (`row_text`), or None for a table too large
    _known: dict[str, dict[str, int] | None] = field(
        default_factory=dict, compare=False, repr=False
    )
    # by table and key columns: whether no two starting rows share their values,
    # and how the schema keeps them unique (`changes.kept_unique`)
    _unique: dict[tuple[str, tuple[str, ...]], tuple[bool, str | None]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def open_copy(self) -> GatedConnection:
        """A fresh in-memory database holding exactly the starting state, with its authorizer for
        life (`assay.world.guard.Gate`)."""
        connection = sqlite3.connect(
            ":memory:", isolation_level=None, check_same_thread=False, factory=GatedConnection
        )
        connection.deserialize(self.image)
        connection.execute(f"{OWN_MARK}PRAGMA cache_size = -{COPY_CACHE_KIB}")
        if self.tracked:
            changes.track(connection)
        return connection

    def logged_rows(self, connection: sqlite3.Connection) -> dict[str, changes.LoggedRows]:
        """Per table whose changes the log of `connection` (a copy of this snapshot) names, those
        rows as they started and as they are now; none for a snapshot with no log."""
        if not self.tracked:
            return {}
        rowids = changes.logged(connection)
        with self._readers.reading(self.image) as start:
            return changes.logged_rows(start, connection, rowids)

    def state_hash(
        self,
        read_whole: Callable[[str], list[tuple[Any, ...]]],
        written: set[str],
        logged: Mapping[str, changes.LoggedRows] | None,
    ) -> str:
        """Content hash of a database that started as this snapshot and changed only `written`:
        a tracked table's digest is updated from its `logged` rows (`logged_rows`), any other is
        read whole by `read_whole`; `logged` None reads every written table whole (a copy whose
        schema changed)."""
        digests = dict(self.digests)
        for table in written & digests.keys():
            if logged is None or table not in self.tracked:
                digests[table] = self._table_digest(read_whole(table), table)
            elif table in logged:
                rows = logged[table]
                digests[table] = updated(digests[table], rows.before, rows.after)
        return combine(digests)

    def changed_rows(
        self,
        connection: sqlite3.Connection,
        keys: Mapping[str, Sequence[str]],
        logged: Mapping[str, changes.LoggedRows],
    ) -> dict[str, ChangedRows]:
        """Per tracked table of `keys`, its `logged` rows (`logged_rows`) as dicts, and whether its
        key columns are unique at the start and in `connection`."""
        found = {}
        for table, key in keys.items():
            rows = logged.get(table)
            found[table] = ChangedRows(
                before=rows.dicts(rows.before) if rows else [],
                after=rows.dicts(rows.after) if rows else [],
                key_unique=self._unique_now(connection, table, tuple(key)),
            )
        return found

    def _unique_now(self, connection: sqlite3.Connection, table: str, key: tuple[str, ...]) -> bool:
        """Whether `key` is unique in the starting state and in `connection` (of the same schema):
        the start and how the schema keeps it unique are read once, the copy each time."""
        if not key:
            return False
        if (table, key) not in self._unique:
            with self._readers.reading(self.image) as reader:
                self._unique[table, key] = (
                    changes.unique(reader, table, key),
                    changes.kept_unique(reader, table, key),
                )
        at_start, kept = self._unique[table, key]
        if not at_start or kept == "rowid":
            return at_start
        if kept == "index":
            return not changes.any_null(connection, table, key)
        return changes.unique(connection, table, key)

    def _table_digest(self, rows: list[tuple[Any, ...]], table: str) -> str:
        """`table_digest` of `rows`, each row that is as it started looked up by its text rather
        than hashed (the hash is of the text alone, so a row whose text is known has that hash)."""
        if table not in self._known:
            self._known[table] = self._starting_hashes(table)
        return digest_rows(rows, self._known[table])

    def _starting_hashes(self, table: str) -> dict[str, int] | None:
        with self._readers.reading(self.image) as reader:
            if reader.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0] > KNOWN_ROWS_UP_TO:
                return None
            texts = (row_text(row) for row in reader.execute(f'SELECT * FROM "{table}"'))
            return {text: text_hash(text) for text in texts}


def cache_dir() -> Path:
    return Path(os.environ.get("ASSAY_HOME", ".assay"))


def snapshot_key(root: Path, spec: WorldSpec, backend: str = "sqlite") -> str:
    """Hash of the files a snapshot is built from, and of how it is built."""
    digest = hashlib.sha256(f"{FORMAT}\0{backend}".encode())
    named = [spec.database.schema_file, *spec.database.seed]
    seeded = [_relative(root, path) for path in service_seed_files(root, spec)]
    for name in [*named, *seeded]:
        path = root / name
        digest.update(f"\0{name}\0".encode())
        if path.is_file():
            digest.update(path.read_bytes())
    for name, service in sorted(spec.services.items()):  # a kind's seed reads its options too
        shape = {"name": name, "kind": service.kind, "options": service.options}
        digest.update(json.dumps(shape, sort_keys=True, default=str).encode())
    return digest.hexdigest()


_loaded: dict[str, Snapshot] = {}


def load_snapshot(root: Path, spec: WorldSpec) -> Snapshot:
    """The world's snapshot: from memory, else from the disk cache, else built now and cached."""
    key = snapshot_key(root, spec)
    if key in _loaded:
        return _loaded[key]
    stem = cache_dir() / "snapshots" / f"{spec.name}-{key[:20]}"
    snapshot = _read_cached(stem, key) or _write_cached(stem, build_snapshot(root, spec, key))
    _loaded[key] = snapshot
    return snapshot


def build_snapshot(root: Path, spec: WorldSpec, key: str) -> Snapshot:
    connection = sqlite3.connect(":memory:", isolation_level=None)
    try:
        schema = root / spec.database.schema_file
        if not schema.is_file():
            raise SpecError(
                shown(root / "world.toml"), "database.schema", f"{shown(schema)} not found"
            )
        try:
            connection.executescript(read_text(schema))
        except sqlite3.Error as error:
            raise SpecError(shown(schema), None, f"schema failed: {error}") from None
        reserved = [t for t in _tables(connection) if t.lower().startswith(RESERVED_PREFIX)]
        if reserved:
            raise SpecError(
                shown(schema), None, f"table {reserved[0]} uses the reserved prefix sandbox_"
            )
        connection.executescript(SQLITE_DDL)
        target = SqliteDatabase(connection)
        for name in spec.database.seed:
            load_seed(target, root / name)
        for table in RESERVED_TABLES:
            if connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]:
                raise SpecError(
                    shown(root / "world.toml"), "database.seed", f"seeds may not fill {table}"
                )
        for _, ddl in service_tables(root, spec, "sqlite"):
            connection.executescript(ddl)
        seed_services(target, root, spec)
        columns = {table: _columns(connection, table) for table in _tables(connection)}
        digests = {table: table_digest(connection, table) for table in columns}
        tracked = changes.trackable(connection, columns)
        changes.install(connection, tracked)
        connection.execute("VACUUM")
        return Snapshot(key, connection.serialize(), columns, digests, frozenset(tracked))
    finally:
        connection.close()


def service_tables(root: Path, spec: WorldSpec, backend: str) -> list[tuple[str, str]]:
    """(dialect, DDL) of the reserved tables of each service kind the world has, once per kind:
    the kind's DDL for `backend`, else its SQLite DDL for the caller to translate. A statement
    several kinds share (the `sandbox_events` table) is given once."""
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    for kind in dict.fromkeys(kind for kind, _ in _services(root, spec)):
        dialect = backend if backend in kind.tables else "sqlite"
        statements = []
        for statement in (kind.tables.get(dialect) or "").split(";"):
            shape = " ".join(statement.split())
            if shape and shape not in seen:
                seen.add(shape)
                statements.append(statement.strip() + ";")
        if statements:
            found.append((dialect, "\n".join(statements) + "\n"))
    return found


def seed_services(target: SeedTarget, root: Path, spec: WorldSpec) -> None:
    """Each service fills its reserved tables from its own seed files."""
    world_file = shown(root / "world.toml")
    for name, (kind, options) in zip(spec.services, _services(root, spec), strict=True):
        kind.seed(target, root, name, options, world_file)


def service_seed_files(root: Path, spec: WorldSpec) -> list[Path]:
    """Every file the services' seeds read, sorted, each once."""
    found = {
        path for kind, options in _services(root, spec) for path in kind.seed_files(root, options)
    }
    return sorted(found)


def _services(root: Path, spec: WorldSpec) -> list[tuple[type[Service], dict[str, Any]]]:
    from assay.world.services import service_class  # services import this module's neighbours

    return [
        (service_class(service.kind, root), service.options) for service in spec.services.values()
    ]


def _relative(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def table_digest(connection: sqlite3.Connection, table: str) -> str:
    """Order-free digest of a table's rows, so that the same content hashes the same."""
    return digest_rows(connection.execute(f'SELECT * FROM "{table}"'))


def _tables(connection: sqlite3.Connection) -> list[str]:
    found = connection.execute(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
    )
    return [row[0] for row in found]


def _columns(connection: sqlite3.Connection, table: str) -> tuple[str, ...]:
    return tuple(row[1] for row in connection.execute(f'PRAGMA table_info("{table}")'))


def _read_cached(stem: Path, key: str) -> Snapshot | None:
    """The cached snapshot, if its image is the one built for `key`: its bytes' digest is checked
    at every read, so an image changed since (a poisoned cache) is built again, with a note."""
    image, meta = Path(f"{stem}.sqlite"), Path(f"{stem}.json")
    try:
        info: dict[str, Any] = json.loads(meta.read_text())
        if info.get("key") != key:
            return None
        columns = {table: tuple(names) for table, names in info["columns"].items()}
        tracked = frozenset(info["tracked"])
        data = image.read_bytes()
        if hashlib.sha256(data).hexdigest() != info["image_sha256"]:
            print(
                f"note: {shown(image)} is not the image built: building it again", file=sys.stderr
            )
            return None
        return Snapshot(key, data, columns, info["digests"], tracked)
    except (OSError, ValueError, KeyError):
        return None


def _write_cached(stem: Path, snapshot: Snapshot) -> Snapshot:
    try:
        stem.parent.mkdir(parents=True, exist_ok=True)
        meta = {
            "key": snapshot.key,
            "columns": snapshot.columns,
            "digests": snapshot.digests,
            "tracked": sorted(snapshot.tracked),
            "image_sha256": hashlib.sha256(snapshot.image).hexdigest(),
        }
        for suffix, data in ((".sqlite", snapshot.image), (".json", json.dumps(meta).encode())):
            temporary = Path(f"{stem}{suffix}.{os.getpid()}.tmp")
            temporary.write_bytes(data)
            temporary.replace(f"{stem}{suffix}")
    except OSError:
        pass  # a cache that cannot be written only costs a rebuild next time
    return snapshot
