"""The voice line's script proved when the world is built: every entry says something and can be
reached, so a bad script is a SpecError naming world.toml and the entry, never a failed call."""

from __future__ import annotations

from typing import Any

from assay.errors import SpecError

LISTS = ("menu", "replies", "hangup_on")


def check_script(name: str, options: dict[str, Any], file: str) -> None:
    for field in ("number", "greeting", "default_reply"):
        if field in options and not isinstance(options[field], str):
            raise SpecError(file, f"services.{name}.{field}", "must be a string")
    for field in LISTS:
        entries = options.get(field, [])
        if not isinstance(entries, list):
            raise SpecError(file, f"services.{name}.{field}", "must be a list of tables")
        for index, entry in enumerate(entries):
            problem = _entry_problem(field, entry)
            if problem:
                raise SpecError(file, f"services.{name}.{field}[{index}]", problem)


def _entry_problem(field: str, entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return 'must be a table like { match = [...], say = "..." }'
    if field != "hangup_on" and not isinstance(entry.get("say"), str):
        return "needs say, the line's answer"
    match = entry.get("match", [])
    phrases = [match] if isinstance(match, str) else match
    if not isinstance(phrases, list) or not all(isinstance(p, str) and p.strip() for p in phrases):
        return "match must be a list of non-empty phrases"
    if not phrases and not (field == "menu" and entry.get("dtmf") not in (None, "")):
        return "needs match phrases" + (" or dtmf digits" if field == "menu" else "")
    return None
