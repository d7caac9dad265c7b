"""A FHIR R4 server (`kind = "fhir"`): read, vread, search (paged), create (If-None-Exist),
update (If-Match, conditional), soft delete; resources validated with fhir.resources R4B and the
code bindings; state in `sandbox_fhir_resources` and `sandbox_fhir_history`; ids from counters,
times from the clock."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qs

from assay.errors import ServiceError, SpecError
from assay.formats.files import shown
from assay.world.services.base import Service, canonical
from assay.world.services.healthcare.fhir.bundles import run_bundle
from assay.world.services.healthcare.fhir.limits import MAX_DEPTH, too_deep
from assay.world.services.healthcare.fhir.outcomes import informational
from assay.world.services.healthcare.fhir.paging import searchset, window
from assay.world.services.healthcare.fhir.query import select
from assay.world.services.healthcare.fhir.search import SearchError
from assay.world.services.healthcare.fhir.store import FhirStore
from assay.world.services.healthcare.fhir.tables import INSERT_CURRENT, INSERT_HISTORY, TABLES
from assay.world.services.healthcare.fhir.tables import canonical as resource_text
from assay.world.services.healthcare.fhir.tools import FHIR_TOOLS
from assay.world.services.healthcare.fhir.validate import InvalidResource, model_class, validated

READS = ("read", "vread", "search")


class FhirServer(Service):
    kind = "fhir"
    surfaces = (("fhir", "fhir"),)
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
        self.created = False

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
        self.created = False  # whether this interaction made a resource (HTTP's 201)
        if too_deep(payload):
            raise ServiceError("too_deep", f"the body nests deeper than {MAX_DEPTH} levels")
        try:
            return getattr(self, f"_{operation}")(**payload)
        except InvalidResource as invalid:
            raise ServiceError(invalid.code, str(invalid)) from None
        except SearchError as error:
            raise ServiceError("bad_request", str(error)) from None

    def _read(self, resource_type: str, id: str) -> dict[str, Any]:
        self._served(resource_type)
        row = self.store.current(resource_type, id)
        if row is None:
            raise ServiceError("not_found", f"no {resource_type}/{id}")
        if row["deleted"]:
            raise ServiceError("gone", f"{resource_type}/{id} was deleted")
        return json.loads(row["resource"])

    def _vread(self, resource_type: str, id: str, version: int) -> dict[str, Any]:
        self._served(resource_type)
        row = self.store.version(resource_type, id, version)
        if row is None:
            raise ServiceError("not_found", f"no version {version} of {resource_type}/{id}")
        if row["method"] == "DELETE":
            raise ServiceError("gone", f"version {version} of {resource_type}/{id} is a deletion")
        return json.loads(row["resource"])

    def _search(
        self, resource_type: str, params: dict[str, str | list[str]], lenient: bool = False
    ) -> dict[str, Any]:
        self._served(resource_type)
        window_asked = window(params)
        issues = None
        try:
            selection = select(self.store.of_type, resource_type, params)
        except SearchError:
            if not lenient:
                raise
            params, issues = self._without_refused(resource_type, params)
            selection = select(self.store.of_type, resource_type, params)
        return searchset(selection, self.base_url, resource_type, params, window_asked, issues)

    def _without_refused(
        self, resource_type: str, params: dict[str, str | list[str]]
    ) -> tuple[dict[str, str | list[str]], dict[str, Any]]:
        """Prefer: handling=lenient (R4 search.html#errors): each parameter refused on its own is
        left out, and an OperationOutcome says which and why."""
        refused: dict[str, str] = {}
        for name, value in params.items():
            try:
                select(self.store.of_type, resource_type, {name: value})
            except SearchError as error:
                refused[name] = str(error)
        if not refused:  # only a combination fails: nothing to leave out
            select(self.store.of_type, resource_type, params)
        issues = [
            {"severity": "warning", "code": "not-supported", "diagnostics": f"ignored: {text}"}
            for text in refused.values()
        ]
        kept = {name: value for name, value in params.items() if name not in refused}
        return kept, {"resourceType": "OperationOutcome", "issue": issues}

    def _transaction(self, bundle: dict[str, Any]) -> dict[str, Any]:
        return run_bundle(self, bundle)

    def matches(self, resource_type: str, query: str) -> list[dict[str, Any]]:
        """Every current resource a search query string (`identifier=x|1&…`) selects."""
        params = parse_qs(query, keep_blank_values=True)
        return select(self.store.of_type, resource_type, params).matches

    def _create(
        self,
        resource: dict[str, Any],
        if_none_exist: str | None = None,
        given_id: str | None = None,
    ) -> dict[str, Any]:
        plain = self._valid(resource)
        kind = plain["resourceType"]
        if if_none_exist:
            existing = self.matches(kind, if_none_exist)
            if len(existing) > 1:
                raise ServiceError("precondition_failed", f"If-None-Exist matched {len(existing)}")
            if existing:  # R4: the server ignores the create and answers the match (200)
                return existing[0]
        given = given_id.partition("/")[2] if given_id else None
        plain["id"] = given or self._new_id(kind)
        self.created = True
        return self._put(plain, version=1, method="POST", created_turn=None)

    def _update(
        self,
        resource: dict[str, Any],
        if_match: str | None = None,
        conditional: str | None = None,
    ) -> dict[str, Any]:
        plain = self._valid(resource)
        if conditional:
            plain = self._conditional_target(plain, conditional)
        if "id" not in plain:
            raise ServiceError(
                "bad_request", f"{plain['resourceType']}.id: an update names the resource's id"
            )
        row = self.store.current(plain["resourceType"], plain["id"])
        version = row["version_id"] if row is not None else 0
        if if_match is not None and if_match.strip('W/"') != str(version):
            raise ServiceError(
                "precondition_failed", f"If-Match {if_match} but version is {version}"
            )
        created = row["created_turn"] if row is not None and not row["deleted"] else None
        self.created = row is None or bool(row["deleted"])
        return self._put(plain, version=version + 1, method="PUT", created_turn=created)

    def _conditional_target(self, plain: dict[str, Any], query: str) -> dict[str, Any]:
        """Conditional update (R4): no match creates, one match is updated, several are 412."""
        kind = plain["resourceType"]
        found = self.matches(kind, query)
        if len(found) > 1:
            raise ServiceError("precondition_failed", f"{kind}?{query} matched {len(found)}")
        if not found:
            return plain if "id" in plain else {**plain, "id": self._new_id(kind)}
        match = found[0]["id"]
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
        """Soft delete; deleting what is deleted already changes nothing (R4 http.html#delete)."""
        self._served(resource_type)
        row = self.store.current(resource_type, id)
        if row is None:
            raise ServiceError("not_found", f"no {resource_type}/{id}")
        if row["deleted"]:
            return informational(f"{resource_type}/{id} was deleted already")
        self._put(
            json.loads(row["resource"]),
            version=row["version_id"] + 1,
            method="DELETE",
            created_turn=row["created_turn"],
        )
        return informational(f"{resource_type}/{id} deleted")

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

    @property
    def base_url(self) -> str:
        """The base the server writes in Bundle links where no HTTP request names one."""
        return self.options.get("base_url", "http://fhir.local")

    def _valid(self, resource: Any) -> dict[str, Any]:
        if isinstance(resource, dict) and isinstance(resource.get("resourceType"), str):
            self._served(resource["resourceType"])
        return validated(resource, self.allowed)

    def _served(self, resource_type: str) -> None:
        if model_class(resource_type) is None:
            raise ServiceError("not_supported", f"{resource_type!r} is not an R4 resource type")
        if self.allowed is not None and resource_type not in self.allowed:
            raise ServiceError("not_supported", f"{resource_type} is not served here")


def _seed_resources(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SpecError(shown(path), None, f"not a FHIR JSON file: {error}") from None
    if isinstance(data, dict) and data.get("resourceType") == "Bundle":
        return [entry["resource"] for entry in data.get("entry", []) if "resource" in entry]
    return [data]
