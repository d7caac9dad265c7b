"""Order-free content digests of tables, the same on every backend for the same values.

A table's digest is the sum, modulo 2**256, of a SHA-256 of each row: a multiset hash, so that a
digest can be brought up to date by taking out the rows a task run changed and adding them back
as they are now, without reading the rest of the table.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

MODULUS = 1 << 256
EMPTY = format(0, "064x")


def row_hash(row: Sequence[Any]) -> int:
    """One row of plain values (int, float, str, bytes, None) as a number below MODULUS."""
    return text_hash(row_text(row))


def row_text(row: Sequence[Any]) -> str:
    """What a row's hash is taken of: repr of plain values is exact (1 and 1.0, 0.0 and -0.0 differ)
    and fast."""
    return repr(tuple(row))


def text_hash(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest(), "big")


def rows_sum(rows: Iterable[Sequence[Any]]) -> int:
    return sum(map(row_hash, rows)) % MODULUS


def digest_rows(rows: Iterable[Sequence[Any]], known: Mapping[str, int] | None = None) -> str:
    """Order-free digest of rows: equal for equal multisets of rows, whatever their order. `known`
    gives the hashes of some rows by their text (`row_text`), looked up rather than worked out."""
    if known is None:
        return format(rows_sum(rows), "064x")

    def hashed(text: str) -> int:
        found = known.get(text)
        return text_hash(text) if found is None else found

    return format(sum(hashed(row_text(row)) for row in rows) % MODULUS, "064x")


def updated(digest: str, removed: Iterable[Sequence[Any]], added: Iterable[Sequence[Any]]) -> str:
    """The digest of a table after `removed` rows left it and `added` rows joined it."""
    total = int(digest, 16) - rows_sum(removed) + rows_sum(added)
    return format(total % MODULUS, "064x")


def combine(digests: dict[str, str]) -> str:
    """One hash for a whole database; table names compare as SQL does, whatever their case."""
    named = sorted((table.lower(), digest) for table, digest in digests.items())
    text = "\n".join(f"{table}:{digest}" for table, digest in named)
    return hashlib.sha256(text.encode()).hexdigest()


def files_digest(root: Path) -> str:
    """sha256 over every file of the world (its relative path and bytes), in path order; hidden
    ones (`.assay/`, a store or snapshots made by running it; `.git/`) and `__pycache__/` are not
    part of it."""
    digest = hashlib.sha256()
    root = root.resolve()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        relative = path.relative_to(root)
        if any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
            continue
        digest.update(relative.as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return f"sha256:{digest.hexdigest()}"
