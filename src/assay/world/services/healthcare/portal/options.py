"""The portal's resources proved when the world is built: keys, required fields and determination
rules, so a bad rule is a SpecError naming world.toml and the rule, never a failed submission."""

from __future__ import annotations

from typing import Any

from assay.errors import SpecError

STATUSES = ("approved", "denied", "pending", "need_more_info")
RULE_FIELDS = {"status", "reason", "auth_number_prefix", "delay_seconds"}


def check_resources(name: str, options: dict[str, Any], file: str) -> None:
    resources = options.get("resources", {})
    if not isinstance(resources, dict):
        raise SpecError(file, f"services.{name}.resources", "must be a table of resources")
    for resource, spec in resources.items():
        where = f"services.{name}.resources.{resource}"
        if not isinstance(spec, dict):
            raise SpecError(file, where, "must be a table with key, required, determinations")
        if not isinstance(spec.get("key", "id"), str):
            raise SpecError(file, f"{where}.key", "must be the name of the key field")
        required = spec.get("required", [])
        if not isinstance(required, list) or not all(isinstance(f, str) for f in required):
            raise SpecError(file, f"{where}.required", "must be a list of field names")
        rules = spec.get("determinations", [])
        if not isinstance(rules, list):
            raise SpecError(file, f"{where}.determinations", "must be a list of rules")
        for index, rule in enumerate(rules):
            _check_rule(file, f"{where}.determinations[{index}]", rule, conditions=True)
        if "default_determination" in spec:
            rule = spec["default_determination"]
            _check_rule(file, f"{where}.default_determination", rule, conditions=False)


def _check_rule(file: str, where: str, rule: Any, *, conditions: bool) -> None:
    if not isinstance(rule, dict):
        raise SpecError(file, where, 'must be a table like { procedure_code = "…", status = "…" }')
    if rule.get("status", "pending") not in STATUSES:
        raise SpecError(file, f"{where}.status", f"must be one of {', '.join(STATUSES)}")
    matched_on = set(rule) - RULE_FIELDS
    if conditions and not matched_on:
        problem = "names no field to match (procedure_code, patient_member_id, …)"
        raise SpecError(file, where, f"{problem}; use default_determination for the rest")
    if not conditions and matched_on:
        raise SpecError(file, where, f"matches nothing: {', '.join(sorted(matched_on))}")
