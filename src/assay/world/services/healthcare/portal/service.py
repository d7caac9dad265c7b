"""A payer portal: keyed resources an agent submits, updates and reads, and prior authorisations
that get a determination by the world's rules (first match wins). State is `sandbox_portal_state`;
every write is also a `portal_action` event."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from assay.errors import ServiceError
from assay.world.services.base import Service
from assay.world.services.healthcare.paths import read_path
from assay.world.services.healthcare.portal.options import RULE_FIELDS, check_resources
from assay.world.services.healthcare.portal.tables import INSERT_ROW, TABLES, canonical, seed_rows
from assay.world.services.healthcare.portal.tools import PORTAL_TOOLS

PRIOR_AUTH = "prior_auth"
DETERMINED = ("status", "reason", "auth_number")  # a prior auth's determination


class Portal(Service):
    kind = "portal"
    surfaces = (("portal", "portal"),)
    options_known = frozenset({"flavor", "seed", "resources"})
    tables: ClassVar[dict[str, str]] = {"sqlite": TABLES}
    tools = PORTAL_TOOLS

    @classmethod
    def seed_files(cls, root: Path, options: dict[str, Any]) -> list[Path]:
        return [root / name for name in options.get("seed", [])]

    @classmethod
    def seed(cls, db: Any, root: Path, name: str, options: dict[str, Any], file: str) -> None:
        check_resources(name, options, file)
        rows = seed_rows(root, name, options, file)
        if rows:
            db.execute_many(INSERT_ROW, rows)

    def handle(self, operation: str, payload: dict[str, Any]) -> dict[str, Any]:
        resource = str(payload["resource"])
        spec = self.options.get("resources", {}).get(resource)
        if spec is None:
            known = ", ".join(sorted(self.options.get("resources", {}))) or "none"
            raise ServiceError("not_found", f"no portal resource {resource!r} (known: {known})")
        if operation == "get":
            return self._row(resource, str(payload["key"]))
        if operation == "search":
            return {"resource": resource, "rows": self._search(resource, payload["filters"])}
        data = dict(payload["data"])
        decided = self._decided_here(resource, spec)
        if decided & data.keys():  # the payer decides a prior auth, never the one who asks for it
            fields = ", ".join(sorted(decided & data.keys()))
            raise ServiceError("read_only", f"{resource}: {fields} set by the portal alone")
        if operation == "update":
            return self._update(resource, str(payload["key"]), data)
        return self._submit(resource, spec, data)

    def _decided_here(self, resource: str, spec: dict[str, Any]) -> set[str]:
        """Fields an agent may not write: a prior auth's key and determination; any record's key
        on update is its own path, so it is left alone too."""
        if resource == PRIOR_AUTH and self.options.get("flavor") == "prior-auth":
            return {spec.get("key", "id"), *DETERMINED}
        return set()

    def duplicate_key(self, operation: str, payload: dict[str, Any]) -> str:
        if operation in ("get", "search"):  # reading twice changes nothing: never a duplicate
            return super().duplicate_key(operation, {**payload, "turn": self.world.turn})
        return super().duplicate_key(operation, payload)

    def _submit(self, resource: str, spec: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        missing = [field for field in spec.get("required", []) if data.get(field) in (None, "", [])]
        if missing:
            raise ServiceError("validation_failed", f"missing: {', '.join(missing)}")
        key_field = spec.get("key", "id")
        if resource == PRIOR_AUTH and self.options.get("flavor") == "prior-auth":
            data[key_field] = self.next_id("PA").replace("_", "-")
            data.update(self._determination(spec, data))
        key = data.get(key_field)
        if key in (None, ""):
            raise ServiceError("validation_failed", f"missing: {key_field}")
        if self._stored(resource, str(key)) is not None:
            raise ServiceError("conflict", f"{resource} {key} exists; update it instead")
        return self._write(resource, str(key), data, version=1)

    def _update(self, resource: str, key: str, data: dict[str, Any]) -> dict[str, Any]:
        found = self._stored(resource, key)
        if found is None:
            raise ServiceError("not_found", f"no {resource} {key}")
        key_field = self.options["resources"][resource].get("key", "id")
        if key_field in data and str(data[key_field]) != key:
            raise ServiceError("read_only", f"{resource}: {key_field} is the record's key")
        merged = {**json.loads(found["data"]), **data}
        return self._write(resource, key, merged, version=found["version"] + 1)

    def _determination(self, spec: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        rules = [*spec.get("determinations", []), spec.get("default_determination", {})]
        for rule in rules:
            conditions = {k: v for k, v in rule.items() if k not in RULE_FIELDS}
            if all(str(read_path(data, k)) == str(v) for k, v in conditions.items()):
                decided = {"status": rule.get("status", "pending")}
                if rule.get("reason"):
                    decided["reason"] = rule["reason"]
                if decided["status"] == "approved":
                    prefix = rule.get("auth_number_prefix", "AUTH")
                    decided["auth_number"] = self.next_id(prefix).replace("_", "-")
                return decided
        return {"status": "pending"}

    def _write(self, resource: str, key: str, data: dict[str, Any], version: int) -> dict[str, Any]:
        db, turn = self.world.db, self.world.turn
        db.execute(
            "DELETE FROM sandbox_portal_state WHERE service = ? AND resource = ? AND key = ?",
            self.name,
            resource,
            key,
        )
        db.execute(INSERT_ROW, self.name, resource, key, canonical(data), version, turn)
        event = canonical({"resource": resource, "key": key, "version": version, "data": data})
        db.execute(
            "INSERT INTO sandbox_events (service, type, turn, at, data) VALUES (?, ?, ?, ?, ?)",
            self.name,
            "portal_action",
            turn,
            self.world.clock.stamp(),
            event,
        )
        return {"resource": resource, "key": key, "version": version, "data": data}

    def _stored(self, resource: str, key: str) -> dict[str, Any] | None:
        return self.world.db.row(
            "SELECT data, version FROM sandbox_portal_state "
            "WHERE service = ? AND resource = ? AND key = ?",
            self.name,
            resource,
            key,
        )

    def _row(self, resource: str, key: str) -> dict[str, Any]:
        found = self._stored(resource, key)
        if found is None:
            raise ServiceError("not_found", f"no {resource} {key}")
        return {
            "resource": resource,
            "key": key,
            "version": found["version"],
            "data": json.loads(found["data"]),
        }

    def _search(self, resource: str, filters: dict[str, Any]) -> list[dict[str, Any]]:
        rows = self.world.db.rows(
            "SELECT key, data FROM sandbox_portal_state WHERE service = ? AND resource = ? "
            "ORDER BY key",
            self.name,
            resource,
        )
        found = []
        for row in rows:
            data = json.loads(row["data"])
            if all(str(read_path(data, k)) == str(v) for k, v in filters.items()):
                found.append({"key": row["key"], "data": data})
        return found
