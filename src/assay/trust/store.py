"""Where validation results are kept: the records store, behind the two methods validation needs.

A result is keyed by world name, world version and a hash over every file that can change the task's
outcome (see `assay.trust.fingerprint`), so that editing any of them makes the task unvalidated again.
"""

from __future__ import annotations

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
        """Keep one task's validation; a later one for the same files supersedes it in
        `latest_validations` (the records store keeps the earlier ones as history)."""
        ...

    def latest_validations(self, world: str, version: str) -> list[dict[str, Any]]:
        """The latest validation of each task and hash of a world version: dicts holding at least
        `task_id`, `task_hash`, `passed` and `record`."""
        ...


def default_store(option: str | None = None) -> ValidationStore:
    """The records store: `--store`, else `ASSAY_STORE`, else `assay.db` under `$ASSAY_HOME` or
    `./.assay`."""
    from assay.runs.store import open_store

    return open_store(option)
