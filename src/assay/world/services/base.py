"""Emulated outside services: every request is recorded in `sandbox_requests`, duplicates marked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from assay.errors import EnvironmentFailure, ServiceError

if TYPE_CHECKING:
    from assay.world.live import LiveWorld
    from assay.world.seed import SeedTarget
    from assay.world.tools import Tool


def canonical(value: Any) -> str:
    return _CANONICAL.encode(value)


# built once: json.dumps with options builds an encoder at every call, twice per request here
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=str)


class Service:
    """Base of every service kind; subclasses answer operations in `handle`.

    A request is a duplicate when the same service already carried out a request with the same
    key; the key is the operation and its canonical payload unless a kind says otherwise.
    """

    kind: ClassVar[str] = "recorder"
    # The options a kind takes (None: any), and those holding SQL, proved read-only when the world loads.
    options_known: ClassVar[frozenset[str] | None] = None
    sql_options: ClassVar[tuple[str, ...]] = ()
    # Tools every world with a service of this kind gets; roles list them by name.
    tools: ClassVar[tuple[Tool, ...]] = ()
    # Backend ("sqlite", "postgresql") → DDL of the kind's reserved sandbox_* tables, run once per
    # world when its starting state is built; without a "postgresql" entry the SQLite one is
    # translated, as a world's schema is.
    tables: ClassVar[dict[str, str]] = {}
    # (endpoint name, path below the benchmark run) of each HTTP surface the API serves for the kind
    surfaces: ClassVar[tuple[tuple[str, str], ...]] = ()

    @classmethod
    def seed_files(cls, root: Path, options: dict[str, Any]) -> list[Path]:
        """The files `seed` reads, hashed into the snapshot key and each task's fingerprint."""
        return []

    @classmethod
    def seed(
        cls, db: SeedTarget, root: Path, name: str, options: dict[str, Any], file: str
    ) -> None:
        """Fill this service's reserved tables when the starting state is built; SpecError names
        the bad seed file and field (`file`: world.toml as shown, for errors in the options)."""

    def __init__(self, name: str, options: dict[str, Any], world: LiveWorld):
        self.name = name
        self.options = options
        self.world = world
        self._done: dict[str, int] = {}
        self._counts: dict[str, int] = {}

    def handle(self, operation: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Answer one request; raise ServiceError to refuse it."""
        return {"id": self.next_id("req"), "status": "ok"}

    def duplicate_key(self, operation: str, payload: dict[str, Any]) -> str:
        return canonical([operation, payload])

    def next_id(self, prefix: str) -> str:
        """Deterministic ids: the same requests in the same order get the same ids."""
        self._counts[prefix] = self._counts.get(prefix, 0) + 1
        return f"{prefix}_{self._counts[prefix]:04d}"

    def request(self, operation: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one request; it is recorded whatever the answer."""
        payload = dict(payload or {})
        key = self.duplicate_key(operation, payload)
        try:
            response = self.handle(operation, payload)
        except ServiceError as refusal:
            answer = {"error": {"code": refusal.code, "message": refusal.message}}
            self._record(operation, payload, answer, "error", None)
            raise
        except Exception as crash:
            raise EnvironmentFailure(
                f"service {self.name} ({self.kind}) crashed on {operation}: {crash!r}"
            ) from crash
        first = self._done.get(key)
        request_id = self._record(operation, payload, response, "ok", first)
        self._done.setdefault(key, request_id)
        return response

    def _record(
        self,
        operation: str,
        payload: dict[str, Any],
        response: dict[str, Any],
        status: str,
        duplicate_of: int | None,
    ) -> int:
        return self.world.record_request(
            self.name, operation, canonical(payload), canonical(response), status, duplicate_of
        )
