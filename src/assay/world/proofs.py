"""Static proofs that passed, kept under $ASSAY_HOME so that a later process loading the same files
need not prove them again (they parse every check with sqlglot: most of a small world's load).

A proof is kept under a key made of all it reads: the bytes of the files it proves and the code that
proves them (the proving modules' bytes and sqlglot's version). Only a proof that passed is kept; a
file that fails is proved, and refused, on every load.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Sequence
from functools import cache
from importlib.util import find_spec
from pathlib import Path

from assay.world.snapshot import cache_dir


def proof_key(code: Sequence[str], *parts: str) -> str:
    """The name a passed proof is kept under; `code` names the modules that decide it."""
    digest = hashlib.sha256(_code_digest(tuple(code)).encode())
    for part in parts:
        digest.update(f"\0{part}".encode())
    return digest.hexdigest()


def proved_before(key: str) -> bool:
    """Whether a proof with this key passed in an earlier process."""
    return (_folder() / key).exists()


def remember(key: str) -> None:
    """Keep a passed proof; a home that cannot be written to only costs the next load the proof."""
    folder = _folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / key).touch()
    except OSError:
        pass


def _folder() -> Path:
    return cache_dir() / "proofs"


@cache
def _code_digest(modules: tuple[str, ...]) -> str:
    files = [_source("sqlglot", "_version.py")]  # found, not imported: sqlglot costs ~0.1 s
    files += [_source(name) for name in modules]
    digest = hashlib.sha256()
    for file in files:
        if file is None:
            return os.urandom(16).hex()  # the code cannot be read: never match a kept proof
        digest.update(f"\0{file.name}\0".encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()


def _source(module: str, beside: str | None = None) -> Path | None:
    """The file of `module` (or the file `beside` in its folder), without importing it."""
    parent = module.rpartition(".")[0]
    if parent and parent not in sys.modules:
        return None  # find_spec would import the package
    spec = find_spec(module)
    origin = spec.origin if spec is not None else None
    if origin is None:
        return None
    path = Path(origin) if beside is None else Path(origin).parent / beside
    return path if path.is_file() else None
