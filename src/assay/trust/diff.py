"""What changed between two records of a task run, one line per change, check by check."""

from __future__ import annotations

import json
from typing import Any

LONGEST = 80
CONTEXT = 24  # characters shown before the first difference of two long values
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
    return [f"{path or 'value'}: {shown_pair(old, new)}"]


def shown(value: Any) -> str:
    text = _text(value)
    return text if len(text) <= LONGEST else text[: LONGEST - 1] + "…"


def shown_pair(old: Any, new: Any) -> str:
    """`old → new`; two long values are shown from a little before where they first differ, so
    that what differs is seen, not a prefix they share."""
    before, after = _text(old), _text(new)
    if max(len(before), len(after)) <= LONGEST:
        return f"{before} → {after}"
    at = next(
        (i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b),
        min(len(before), len(after)),
    )
    start = max(at - CONTEXT, 0)
    where = f" (first difference at character {at})" if start else ""
    return f"{_window(before, start)} → {_window(after, start)}{where}"


def _window(text: str, start: int) -> str:
    """`LONGEST` characters of `text` from `start`, an ellipsis where any are left out."""
    shown_part = text[start : start + LONGEST - 1]
    head = "…" if start else ""
    tail = "…" if start + LONGEST - 1 < len(text) else ""
    return head + shown_part + tail


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
