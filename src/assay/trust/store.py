"""Where validation results are kept: an interface, and a JSON file for when no records store is set.

A result is keyed by world name, world version and the hash of the task file's bytes, so that editing
a task makes it unvalidated again.
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from assay.errors import SpecError
from assay.spec.files import shown
from assay.world.snapshot import cache_dir

FORMAT = "assay-validations-1"
KEYS = frozenset({"world", "version", "task_id", "task_hash", "passed", "record"})


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
    """sha256 of the task file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


class JsonValidationStore:
    """Validations in one JSON file, `validations.json` under `$ASSAY_HOME` or `./.assay`."""

    def __init__(self, path: Path | None = None):
        self.path = path or cache_dir() / "validations.json"

    def save_validation(
        self,
        world: str,
        version: str,
        task_id: str,
        task_hash: str,
        passed: bool,
        record: dict[str, Any],
    ) -> None:
        entries = self._read()
        key = (world, version, task_id, task_hash)
        entries = [entry for entry in entries if _key(entry) != key]
        entries.append(
            {
                "world": world,
                "version": version,
                "task_id": task_id,
                "task_hash": task_hash,
                "passed": passed,
                "record": record,
                "validated_at": _now(),
            }
        )
        self._write(entries)

    def latest_validations(self, world: str, version: str) -> list[dict[str, Any]]:
        return [
            entry
            for entry in self._read()
            if entry.get("world") == world and entry.get("version") == version
        ]

    def _read(self) -> list[dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as error:
            raise SpecError(shown(self.path), None, f"cannot read validations: {error}") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise SpecError(shown(self.path), "format", f"not a {FORMAT} file")
        entries = data.get("validations")
        if not isinstance(entries, list):
            raise SpecError(shown(self.path), "validations", "not a list")
        return [entry for entry in entries if isinstance(entry, dict) and entry.keys() >= KEYS]

    def _write(self, entries: list[dict[str, Any]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        entries.sort(key=_key)
        text = json.dumps({"format": FORMAT, "validations": entries}, indent=1, sort_keys=True)
        temporary = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        temporary.write_text(text + "\n", encoding="utf-8")
        temporary.replace(self.path)  # a reader never sees a half-written file


def default_store() -> ValidationStore:
    """The store validations go to when none is given."""
    return JsonValidationStore()


def _key(entry: dict[str, Any]) -> tuple[str, str, str, str]:
    return (entry["world"], entry["version"], entry["task_id"], entry["task_hash"])


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
