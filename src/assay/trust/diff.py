"""What changed between two records of a task run, one line per change, check by check."""

from __future__ import annotations

import json
from typing import Any

LONGEST = 80
EMPTY = (0, None, False, [], {}, "")  # 0 == 0.0 == False: one test covers them all


def differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Each change from `old` to `new`; check runs are matched by name, other fields by path."""
    lines: list[str] = []
    for key in sorted(old.keys() | new.keys()):
        if key == "checks":
            lines += _check_changes(old.get(key) or [], new.get(key) or [])
        else:
            lines += _changes(key, old.get(key), new.get(key))
    return lines


def _check_changes(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[str]:
    before, after = _by_name(old), _by_name(new)
    lines = [f"check {name!r} is gone" for name in before if name not in after]
    lines += [f"check {name!r} is new" for name in after if name not in before]
    for name in (name for name in after if name in before):
        for change in _changes("", before[name], after[name]):
            lines.append(f"check {name!r}: {change}")
    if not lines and list(before) != list(after):
        lines.append("the checks ran in another order")
    return lines


def _by_name(checks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    named: dict[str, dict[str, Any]] = {}
    for index, check in enumerate(checks):
        name = str(check.get("name", index))
        named[name if name not in named else f"{name} #{index}"] = check
    return named


def _changes(path: str, old: Any, new: Any) -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        lines = []
        for key in sorted(old.keys() | new.keys()):
            if key not in old and new[key] in EMPTY:
                continue  # a field added since the record was made, at its nothing-happened value
            lines += _changes(f"{path}.{key}" if path else str(key), old.get(key), new.get(key))
        return lines
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        lines = []
        for index, (before, after) in enumerate(zip(old, new, strict=True)):
            lines += _changes(f"{path}[{index}]", before, after)
        return lines
    if old == new:
        return []
    return [f"{path or 'value'}: {shown(old)} → {shown(new)}"]


def shown(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    return text if len(text) <= LONGEST else text[: LONGEST - 1] + "…"
