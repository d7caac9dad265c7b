"""A shared file tree (`kind = "files"`), what an SFTP drop box holds: `sandbox_files` is the
truth, seeded from the world's folders, its declared folders rows of their own; writes only where
`writable` globs allow; a deleted file keeps its row (`deleted = 1`), so nothing is ever lost."""

from __future__ import annotations

import base64
import binascii
import hashlib
from pathlib import Path
from typing import Any, ClassVar

from assay.errors import ServiceError, SpecError
from assay.world.services.base import Service, canonical
from assay.world.services.healthcare.files.folders import (
    Entry,
    ancestors,
    declared_folders,
    entry,
    folder_writable,
    listing,
)
from assay.world.services.healthcare.files.tools import FILES_TOOLS
from assay.world.services.healthcare.globs import BadTreePath, glob_problem, matches, tree_path

COLUMNS = "path TEXT PRIMARY KEY, {content} size INTEGER NOT NULL, sha256 TEXT NOT NULL, "
COLUMNS += "origin TEXT NOT NULL, created_turn INTEGER NOT NULL, updated_turn INTEGER NOT NULL, "
COLUMNS += "deleted INTEGER NOT NULL DEFAULT 0, kind TEXT NOT NULL DEFAULT 'file'"
TABLE = "CREATE TABLE IF NOT EXISTS sandbox_files ({});"
INSERT = (
    "INSERT INTO sandbox_files (path, content, size, sha256, origin, created_turn, updated_turn, "
    "deleted, kind) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)"
)
FILE, FOLDER = "file", "folder"
DEFAULT_MAX_BYTES = 5_000_000


class FileTree(Service):
    kind = "files"
    surfaces = (("files", "files"), ("files_inbox", "files/inbox"))
    options_known = frozenset({"seed", "writable", "max_file_bytes", "sftp", "folders"})
    tables: ClassVar[dict[str, str]] = {
        "sqlite": TABLE.format(COLUMNS.format(content="content BLOB NOT NULL,")),
        "postgresql": TABLE.format(COLUMNS.format(content="content BYTEA NOT NULL,")),
    }
    tools = FILES_TOOLS

    @classmethod
    def seed_files(cls, root: Path, options: dict[str, Any]) -> list[Path]:
        seeds = options.get("seed", {})
        folders = [root / folder for folder in seeds.values()] if isinstance(seeds, dict) else []
        return sorted(path for folder in folders for path in folder.rglob("*") if path.is_file())

    @classmethod
    def seed(cls, db: Any, root: Path, name: str, options: dict[str, Any], file: str) -> None:
        _check_options(name, options, file)
        folders = set(declared_folders(options))
        for prefix, folder in options.get("seed", {}).items():
            base = root / folder
            if not base.is_dir():
                raise SpecError(file, f"services.{name}.seed.{prefix}", f"{folder} is not a folder")
            for path in sorted(p for p in base.rglob("*") if p.is_file()):
                where = tree_path(prefix.rstrip("/") + "/" + path.relative_to(base).as_posix())
                data = path.read_bytes()
                db.execute(INSERT, where, data, len(data), _sha(data), "seed", 0, 0, FILE)
                folders.update(ancestors(where))
        for folder in sorted(folders):  # kept empty or not, as a file system keeps them
            db.execute(INSERT, folder, b"", 0, _sha(b""), "seed", 0, 0, FOLDER)

    def __init__(self, name: str, options: dict[str, Any], world: Any):
        super().__init__(name, options, world)
        self.writable = list(options.get("writable", []))
        self.max_bytes = int(options.get("max_file_bytes", DEFAULT_MAX_BYTES))

    def handle(self, operation: str, payload: dict[str, Any]) -> dict[str, Any]:
        if operation == "list":
            return {"files": self._list(str(payload.get("prefix") or ""))}
        if operation == "move":
            return self._move(self._path(payload["src"]), self._path(payload["dst"]))
        path = self._path(payload["path"])
        if operation == "read":
            return self._read(path)
        if operation in ("mkdir", "rmdir"):
            return self._make_folder(path) if operation == "mkdir" else self._remove_folder(path)
        if operation == "delete":
            self._must_write(path)
            found = self._found(path)
            self._gone(path)
            return {"path": path, "deleted": True, "sha256": found["sha256"]}
        data = _decode(str(payload["content"]), str(payload.get("encoding") or "utf-8"))
        return self.write(path, data)

    def duplicate_key(self, operation: str, payload: dict[str, Any]) -> str:
        if operation in ("list", "read"):  # reading twice changes nothing: never a duplicate
            return canonical([operation, payload, self.world.turn])
        return super().duplicate_key(operation, payload)

    def writable_path(self, path: str) -> bool:
        return any(matches(pattern, path) for pattern in self.writable)

    def writable_folder(self, path: str) -> bool:
        return folder_writable(self.writable, path)

    def entry(self, path: str) -> Entry | None:
        """What a path names in the live tree now: a file, a folder, or nothing (None)."""
        return entry(self.world.db, path)

    def listing(self, folder: str) -> list[Entry]:
        """The names directly inside a folder of the live tree now."""
        return listing(self.world.db, folder)

    def content(self, path: str) -> bytes:
        """A live file's bytes; ServiceError not_found when there is none."""
        return bytes(self._found(path)["content"])

    def write(self, path: str, data: bytes) -> dict[str, Any]:
        self._must_write(path)
        if len(data) > self.max_bytes:
            message = f"{path}: {len(data)} bytes is more than the {self.max_bytes} a file may hold"
            raise ServiceError("too_large", message)
        db, turn = self.world.db, self.world.turn
        old = db.row("SELECT kind, deleted FROM sandbox_files WHERE path = ?", path)
        if old is not None and old["kind"] == FOLDER and not old["deleted"]:
            raise ServiceError("bad_path", f"{path} is a folder")
        if old is None:
            db.execute(INSERT, path, data, len(data), _sha(data), "agent", turn, turn, FILE)
        else:
            db.execute(
                "UPDATE sandbox_files SET content = ?, size = ?, sha256 = ?, origin = 'agent', "
                "updated_turn = ?, deleted = 0, kind = 'file' WHERE path = ?",
                data,
                len(data),
                _sha(data),
                turn,
                path,
            )
        return {"path": path, "size": len(data), "sha256": _sha(data)}

    def _path(self, text: Any) -> str:
        try:
            return tree_path(str(text))
        except BadTreePath as error:
            raise ServiceError("bad_path", str(error)) from None

    def _must_write(self, path: str) -> None:
        if not self.writable_path(path):
            allowed = ", ".join(self.writable) or "nowhere"
            raise ServiceError("read_only", f"{path} is read-only (writable: {allowed})")

    def _found(self, path: str) -> dict[str, Any]:
        row = self.world.db.row(
            "SELECT path, content, size, sha256 FROM sandbox_files WHERE path = ? AND deleted = 0 "
            "AND kind = 'file'",
            path,
        )
        if row is None:
            raise ServiceError("not_found", f"no file {path}")
        return row

    def _read(self, path: str) -> dict[str, Any]:
        row = self._found(path)
        data = bytes(row["content"])
        try:
            content, encoding = data.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            content, encoding = base64.b64encode(data).decode("ascii"), "base64"
        return {
            "path": path,
            "size": row["size"],
            "sha256": row["sha256"],
            "encoding": encoding,
            "content": content,
        }

    def _move(self, src: str, dst: str) -> dict[str, Any]:
        """A file goes anywhere writable; it may come from anywhere (clearing the inbox)."""
        data = bytes(self._found(src)["content"])
        if src == dst:
            raise ServiceError("bad_path", f"{src} is already there")
        written = self.write(dst, data)
        self._gone(src)
        return {**written, "moved_from": src}

    def _gone(self, path: str) -> None:
        self.world.db.execute(
            "UPDATE sandbox_files SET deleted = 1, updated_turn = ? WHERE path = ?",
            self.world.turn,
            path,
        )

    def _make_folder(self, path: str) -> dict[str, Any]:
        """mkdir(2): the parent must be there, the name free, the place writable."""
        if not self.writable_folder(path):
            allowed = ", ".join(self.writable) or "nowhere"
            raise ServiceError("read_only", f"{path} is read-only (writable: {allowed})")
        if self.entry(path) is not None:
            raise ServiceError("already_exists", f"{path} already exists")
        parent = path.rsplit("/", 1)[0] if "/" in path else ""
        if (found := self.entry(parent)) is None or found.kind != FOLDER:
            raise ServiceError("not_found", f"no folder {parent} to make {path} in")
        db, turn = self.world.db, self.world.turn
        if db.row("SELECT path FROM sandbox_files WHERE path = ?", path) is None:
            db.execute(INSERT, path, b"", 0, _sha(b""), "agent", turn, turn, FOLDER)
        else:  # a name deleted before: its row (and any old bytes) stays, as a folder now
            db.execute(
                "UPDATE sandbox_files SET kind = 'folder', deleted = 0, origin = 'agent', "
                "updated_turn = ? WHERE path = ?",
                turn,
                path,
            )
        return {"path": path, "folder": True}

    def _remove_folder(self, path: str) -> dict[str, Any]:
        """rmdir(2): only an empty folder, in a writable place."""
        found = self.entry(path)
        if found is None or found.kind != FOLDER:
            raise ServiceError("not_found", f"no folder {path}")
        if not self.writable_folder(path):
            allowed = ", ".join(self.writable) or "nowhere"
            raise ServiceError("read_only", f"{path} is read-only (writable: {allowed})")
        inside = [item.name for item in self.listing(path)]
        if inside:
            raise ServiceError("not_empty", f"{path} is not empty: {', '.join(inside[:5])}")
        self._gone(path)
        return {"path": path, "deleted": True}

    def _list(self, prefix: str) -> list[dict[str, Any]]:
        rows = self.world.db.rows(
            "SELECT path, size, sha256, updated_turn FROM sandbox_files WHERE deleted = 0 "
            "AND kind = 'file' ORDER BY path"
        )
        return [
            {
                "path": row["path"],
                "size": row["size"],
                "sha256": row["sha256"],
                "writable": self.writable_path(row["path"]),
            }
            for row in rows
            if row["path"].startswith(prefix)
        ]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _decode(content: str, encoding: str) -> bytes:
    if encoding == "utf-8":
        return content.encode("utf-8")
    if encoding == "base64":
        try:
            return base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError):
            raise ServiceError("bad_content", "content is not valid base64") from None
    raise ServiceError("bad_content", f"encoding {encoding!r}: use utf-8 or base64")


def _check_options(name: str, options: dict[str, Any], file: str) -> None:
    seeds = options.get("seed", {})
    if not isinstance(seeds, dict):
        raise SpecError(
            file,
            f"services.{name}.seed",
            'must map a prefix to a folder: { "inbox/" = "data/files/inbox" }',
        )
    writable = options.get("writable", [])
    if not isinstance(writable, list) or not all(isinstance(item, str) for item in writable):
        raise SpecError(file, f"services.{name}.writable", "must be a list of globs")
    for index, pattern in enumerate(writable):
        problem = glob_problem(pattern)
        if problem:
            raise SpecError(file, f"services.{name}.writable[{index}]", problem)
    folders = options.get("folders", [])
    if not isinstance(folders, list) or not all(isinstance(item, str) for item in folders):
        raise SpecError(
            file, f"services.{name}.folders", 'must list folders like "outbound/claims"'
        )
    for index, folder in enumerate(folders):
        try:
            tree_path(folder.strip("/"))
        except BadTreePath as error:
            raise SpecError(file, f"services.{name}.folders[{index}]", str(error)) from None
    size = options.get("max_file_bytes", DEFAULT_MAX_BYTES)
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise SpecError(file, f"services.{name}.max_file_bytes", "must be a whole number of bytes")
