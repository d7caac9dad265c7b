"""Where validation results are kept: the records store, behind the two methods validation needs.

A result is keyed by world name, world version and the hash of the task file's bytes, so that editing
a task makes it unvalidated again.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Protocol


class ValidationStore(Protocol):
    def save_validation(
        self,
        world: str,
        version: str,
        task_id: str,
        task_hash: str,
        passed: bool,
        record: dict[str, Any],
    ) -> None:
        """Keep one task's validation; a later one for the same task file replaces it."""
        ...

    def latest_validations(self, world: str, version: str) -> list[dict[str, Any]]:
        """The latest validation of each task file of a world version: dicts holding at least
        `task_id`, `task_hash`, `passed` and `record`."""
        ...


def task_hash(path: Path) -> str:
    """sha256 of the task file's bytes (of none when it is not a file, such as a directory)."""
    return hashlib.sha256(path.read_bytes() if path.is_file() else b"").hexdigest()


def default_store(option: str | None = None) -> ValidationStore:
    """The records store: `--store`, else `ASSAY_STORE`, else `assay.db` under `$ASSAY_HOME` or
    `./.assay`."""
    from assay.runs.store import open_store

    return open_store(option)
