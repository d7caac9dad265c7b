"""Folders of the shared file tree. A folder is a `sandbox_files` row of kind `folder` (made when
the starting state is built, or by `files_mkdir`, kept until `files_rmdir`), or is implied by the
files under it; what a client sees is one tree of both, read live from the database."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from assay.world.services.healthcare.globs import matches, tree_path

LIVE = "deleted = 0"
WILDCARD = re.compile(r"[*?\[]")


@dataclass(frozen=True)
class Entry:
    """One name in the tree: a file (with its size) or a folder."""

    path: str
    kind: str  # file | folder
    size: int = 0
    updated_turn: int = 0

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


def ancestors(path: str) -> list[str]:
    """`a/b/c` → `["a", "a/b"]`: the folders a path sits in."""
    parts = path.split("/")
    return ["/".join(parts[:end]) for end in range(1, len(parts))]


def declared_folders(options: dict[str, Any]) -> list[str]:
    """The folders a files service declares: `folders`, its seed prefixes and the fixed part of
    each `writable` glob (`outbound/**` → outbound), with the folders they sit in."""
    named = [str(folder) for folder in options.get("folders", [])]
    named += [str(prefix) for prefix in options.get("seed", {})]
    named += [literal_folder(str(pattern)) for pattern in options.get("writable", [])]
    found: set[str] = set()
    for name in named:
        if name.strip("/"):
            path = tree_path(name.strip("/"))
            found.update([*ancestors(path), path])
    return sorted(found)


def literal_folder(pattern: str) -> str:
    """The folder a glob's fixed part names: `outbound/claims/*.x12` → outbound/claims."""
    fixed = WILDCARD.split(pattern, maxsplit=1)[0]
    return fixed.rsplit("/", 1)[0] if "/" in fixed else ""


def folder_writable(patterns: list[str], folder: str) -> bool:
    """Whether a folder may be made, removed or changed: it is inside or on the way to a place
    the `writable` globs allow."""
    for pattern in patterns:
        fixed = literal_folder(pattern)
        if fixed and (fixed == folder or fixed.startswith(folder + "/")):
            return True
        if matches(pattern, folder + "/x"):
            return True
    return False


def entry(db: Any, path: str) -> Entry | None:
    """What `path` names in the live tree ("" is the root), or None."""
    if path == "":
        return Entry("", "folder")
    row = db.row(
        f"SELECT path, kind, size, updated_turn FROM sandbox_files WHERE path = ? AND {LIVE}", path
    )
    if row is not None:
        return Entry(row["path"], row["kind"], row["size"], row["updated_turn"])
    under = db.row(
        f"SELECT MAX(updated_turn) AS turn FROM sandbox_files WHERE {LIVE} AND substr(path, 1, ?) = ?",
        len(path) + 1,
        path + "/",
    )
    if under is not None and under["turn"] is not None:
        return Entry(path, "folder", 0, under["turn"])
    return None


def listing(db: Any, folder: str) -> list[Entry]:
    """The names directly inside a folder of the live tree, folders implied by files included."""
    prefix = folder + "/" if folder else ""
    rows = db.rows(
        f"SELECT path, kind, size, updated_turn FROM sandbox_files WHERE {LIVE} "
        "AND substr(path, 1, ?) = ? ORDER BY path",
        len(prefix),
        prefix,
    )
    found: dict[str, Entry] = {}
    for row in rows:
        rest = row["path"][len(prefix) :]
        if "/" in rest:
            child = prefix + rest.split("/", 1)[0]
            known = found.get(child)
            turn = max(row["updated_turn"], known.updated_turn if known else 0)
            found[child] = Entry(child, "folder", 0, turn)
        elif row["path"] not in found:
            found[row["path"]] = Entry(row["path"], row["kind"], row["size"], row["updated_turn"])
    return [found[path] for path in sorted(found)]
