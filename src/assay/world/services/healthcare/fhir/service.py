"""A FHIR R4 server (`kind = "fhir"`): read, vread, search, create (If-None-Exist), update
(If-Match), soft delete; resources validated with fhir.resources R4B and the code bindings; state
in `sandbox_fhir_resources` and `sandbox_fhir_history`; ids from counters, times from the clock."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qsl

from assay.errors import ServiceError, SpecError
from assay.spec.files import shown
from assay.world.services.base import Service, canonical
from assay.world.services.healthcare.fhir.bundles import run_bundle
from assay.world.services.healthcare.fhir.query import select, shaped
from assay.world.services.healthcare.fhir.search import SearchError
from assay.world.services.healthcare.fhir.store import FhirStore
from assay.world.services.healthcare.fhir.tables import INSERT_CURRENT, INSERT_HISTORY, TABLES
from assay.world.services.healthcare.fhir.tables import canonical as resource_text
from assay.world.services.healthcare.fhir.tools import FHIR_TOOLS
from assay.world.services.healthcare.fhir.validate import InvalidResource, validated

DEFAULT_COUNT, MAX_COUNT = 50, 200
READS = ("read", "vread", "search")


class FhirServer(Service):
    kind = "fhir"
    options_known = frozenset({"seed", "resource_types", "base_url"})
    tables: ClassVar[dict[str, str]] = {"sqlite": TABLES}
    tools = FHIR_TOOLS

    @classmethod
    def seed_files(cls, root: Path, options: dict[str, Any]) -> list[Path]:
        return sorted({path for pattern in options.get("seed", []) for path in root.glob(pattern)})

    @classmethod
    def seed(cls, db: Any, root: Path, name: str, options: dict[str, Any], file: str) -> None:
        allowed = set(options["resource_types"]) if "resource_types" in options else None
        for path in cls.seed_files(root, options):
            for resource in _seed_resources(path):
                try:
                    plain = validated(resource, allowed)
                except InvalidResource as invalid:
                    path_name, message = invalid.issues[0]
                    raise SpecError(shown(path), path_name, message) from None
                if "id" not in plain:
                    raise SpecError(
                        shown(path), f"{plain['resourceType']}.id", "a seed needs its id"
                    )
                stamp = plain.get("meta", {}).get("lastUpdated", "2026-01-01T00:00:00Z")
                plain["meta"] = {**plain.get("meta", {}), "versionId": "1", "lastUpdated": stamp}
                row = (plain["resourceType"], plain["id"], 1, stamp)
                text = resource_text(plain)
                db.execute(INSERT_CURRENT, *row, 0, 0, text)
                db.execute(INSERT_HISTORY, *row, "SEED", 0, text)

    def __init__(self, name: str, options: dict[str, Any], world: Any):
        super().__init__(name, options, world)
        self.store = FhirStore(world)
        types = options.get("resource_types")
        self.allowed = set(types) if types else None

    def duplicate_key(self, operation: str, payload: dict[str, Any]) -> str:
        if operation in READS:  # reading twice changes nothing: never a duplicate effect
            return canonical([operation, payload, self.world.turn])
        if operation == "transaction":
            return canonical([operation, payload])
        if operation == "create":  # the same content created twice is, whatever its id
            resource = {k: v for k, v in payload["resource"].items() if k not in ("id", "meta")}
            return canonical(["create", resource])
        return canonical([operation, payload])

    def handle(self, operation: str, payload: dict[str, Any]) -> dict[str, Any]:
        try:
            return getattr(self, f"_{operation}")(**payload)
        except InvalidResource as invalid:
            raise ServiceError(invalid.code, str(invalid)) from None
        except SearchError as error:
            raise ServiceError("bad_request", str(error)) from None

    def _read(self, resource_type: str, id: str) -> dict[str, Any]:
        row = self.store.current(resource_type, id)
        if row is None:
            raise ServiceError("not_found", f"no {resource_type}/{id}")
        if row["deleted"]:
            raise ServiceError("gone", f"{resource_type}/{id} was deleted")
        return json.loads(row["resource"])

    def _vread(self, resource_type: str, id: str, version: int) -> dict[str, Any]:
        row = self.store.version(resource_type, id, version)
        if row is None:
            raise ServiceError("not_found", f"no version {version} of {resource_type}/{id}")
        if row["method"] == "DELETE":
            raise ServiceError("gone", f"version {version} of {resource_type}/{id} is a deletion")
        return json.loads(row["resource"])

    def _search(self, resource_type: str, params: dict[str, str]) -> dict[str, Any]:
        self._served(resource_type)
        selection = select(self.store.of_type, resource_type, params)
        counted = selection.summary == "count"  # the total alone
        found = [] if counted else selection.matches
        count = _count(params.get("_count"))
        base = self.options.get("base_url", "http://fhir.local")
        query = "&".join(f"{k}={v}" for k, v in sorted(params.items()))
        return {
            "resourceType": "Bundle",
            "type": "searchset",
            "total": len(selection.matches),
            "link": [{"relation": "self", "url": f"{base}/{resource_type}?{query}"}],
            "entry": [
                {
                    "fullUrl": f"{base}/{r['resourceType']}/{r['id']}",
                    "resource": shaped(r, selection),
                    "search": {"mode": mode},
                }
                for r, mode in [(r, "match") for r in found[:count]]
                + [(r, "include") for r in ([] if counted else selection.included)]
            ],
        }

    def _transaction(self, bundle: dict[str, Any]) -> dict[str, Any]:
        return run_bundle(self, bundle)

    def _create(
        self,
        resource: dict[str, Any],
        if_none_exist: str | None = None,
        given_id: str | None = None,
    ) -> dict[str, Any]:
        plain = validated(resource, self.allowed)
        kind = plain["resourceType"]
        if if_none_exist:
            existing = self._search(kind, dict(parse_qsl(if_none_exist)))["entry"]
            if len(existing) > 1:
                raise ServiceError("precondition_failed", f"If-None-Exist matched {len(existing)}")
            if existing:
                return existing[0]["resource"]
        given = given_id.partition("/")[2] if given_id else None
        plain["id"] = given or self._new_id(kind)
        return self._put(plain, version=1, method="POST", created_turn=None)

    def _update(
        self,
        resource: dict[str, Any],
        if_match: str | None = None,
        conditional: str | None = None,
    ) -> dict[str, Any]:
        plain = validated(resource, self.allowed)
        if conditional:
            plain = self._conditional_target(plain, conditional)
        if "id" not in plain:
            raise ServiceError(
                "invalid", f"{plain['resourceType']}.id: an update names the resource's id"
            )
        row = self.store.current(plain["resourceType"], plain["id"])
        version = row["version_id"] if row is not None else 0
        if if_match is not None and if_match.strip('W/"') != str(version):
            raise ServiceError(
                "precondition_failed", f"If-Match {if_match} but version is {version}"
            )
        created = row["created_turn"] if row is not None and not row["deleted"] else None
        return self._put(plain, version=version + 1, method="PUT", created_turn=created)

    def _conditional_target(self, plain: dict[str, Any], query: str) -> dict[str, Any]:
        """Conditional update (R4): no match creates, one match is updated, several are 412."""
        kind = plain["resourceType"]
        found = self._search(kind, dict(parse_qsl(query)))["entry"]
        if len(found) > 1:
            raise ServiceError("precondition_failed", f"{kind}?{query} matched {len(found)}")
        if not found:
            return plain if "id" in plain else {**plain, "id": self._new_id(kind)}
        match = found[0]["resource"]["id"]
        if plain.get("id", match) != match:
            raise ServiceError("bad_request", f"{kind}?{query} matched {match}, not {plain['id']}")
        return {**plain, "id": match}

    def _new_id(self, kind: str) -> str:
        """The next `<type>-NNNN` no resource has yet (a seed may hold one of that form)."""
        while True:
            ident = self.next_id(kind.lower()).replace("_", "-")
            if self.store.current(kind, ident) is None:
                return ident

    def _delete(self, resource_type: str, id: str) -> dict[str, Any]:
        current = self._read(resource_type, id)
        row = self.store.current(resource_type, id)
        self._put(
            current,
            version=row["version_id"] + 1,
            method="DELETE",
            created_turn=row["created_turn"],
        )
        return {"resourceType": resource_type, "id": id, "deleted": True}

    def _put(
        self, plain: dict[str, Any], *, version: int, method: str, created_turn: int | None
    ) -> dict[str, Any]:
        plain["meta"] = {
            **plain.get("meta", {}),
            "versionId": str(version),
            "lastUpdated": self.world.clock.stamp(),
        }
        self.store.write(plain, version, method, created_turn)
        return plain

    def _served(self, resource_type: str) -> None:
        if self.allowed is not None and resource_type not in self.allowed:
            raise ServiceError("not_found", f"{resource_type} is not served here")


def _sorted(found: list[dict[str, Any]], sort: str | None) -> list[dict[str, Any]]:
    if not sort:
        return found
    key = sort.lstrip("-")
    paths = {"_lastUpdated": lambda r: r.get("meta", {}).get("lastUpdated", ""), "date": _date_of}
    if key not in paths:
        raise SearchError(f"_sort: {sort!r} is not _lastUpdated or date")
    return sorted(found, key=paths[key], reverse=sort.startswith("-"))


def _date_of(resource: dict[str, Any]) -> str:
    for field in ("start", "effectiveDateTime", "authoredOn", "birthDate", "date"):
        if isinstance(resource.get(field), str):
            return resource[field]
    return str(resource.get("period", {}).get("start", ""))


def _count(text: str | None) -> int:
    if text is None:
        return DEFAULT_COUNT
    if not text.isdigit():
        raise SearchError(f"_count: {text!r} is not a whole number")
    return min(int(text), MAX_COUNT)


def _seed_resources(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SpecError(shown(path), None, f"not a FHIR JSON file: {error}") from None
    if isinstance(data, dict) and data.get("resourceType") == "Bundle":
        return [entry["resource"] for entry in data.get("entry", []) if "resource" in entry]
    return [data]
