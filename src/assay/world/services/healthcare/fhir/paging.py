"""Searchset Bundles, one page at a time (R4 http.html#paging): `_count` entries from `_offset`,
with self/first/previous/next/last links that are the search itself at another offset, so a
link keeps working however the task run goes on (the page it names holds what then matches)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from assay.world.services.healthcare.fhir.query import PAGING, Selection, shaped
from assay.world.services.healthcare.fhir.search import SearchError

DEFAULT_COUNT, MAX_COUNT = 50, 200
SAFE = ",|:/"  # left as they are in link queries: R4 search syntax, read back the same


def window(params: Mapping[str, str | list[str]]) -> tuple[int, int]:
    """`_count` (at most MAX_COUNT: R4 lets a server return fewer) and `_offset` asked."""
    count = _whole(params, "_count")
    offset = _whole(params, "_offset")
    return (DEFAULT_COUNT if count is None else min(count, MAX_COUNT)), offset or 0


def searchset(
    selection: Selection,
    base: str,
    resource_type: str,
    params: Mapping[str, str | list[str]],
    window: tuple[int, int],
    issues: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The page of `selection` that `window` (count, offset) names.

    base: the server's base URL; issues: an OperationOutcome for the page (search.mode outcome).
    """
    count, offset = window
    search_url = f"{base}/{resource_type}"
    matches = selection.matches
    shown = [] if count == 0 or selection.summary == "count" else matches[offset : offset + count]
    entries = [_entry(base, shaped(r, selection), "match") for r in shown]
    if shown:
        added = selection.included_for(shown)
        entries += [_entry(base, shaped(r, selection), "include") for r in added]
    if issues is not None:
        entries.append({"resource": issues, "search": {"mode": "outcome"}})
    bundle: dict[str, Any] = {"resourceType": "Bundle", "type": "searchset"}
    if selection.total != "none":
        bundle["total"] = len(matches)
    kept = {name: value for name, value in params.items() if name not in PAGING}
    bundle["link"] = [
        {"relation": relation, "url": _link(search_url, kept, count, at)}
        for relation, at in _relations(len(matches), count, offset)
    ]
    if entries:  # R4 Bundle: an element with no content is left out, not sent empty
        bundle["entry"] = entries
    return bundle


def _relations(total: int, count: int, offset: int) -> list[tuple[str, int]]:
    if count == 0:
        return [("self", offset)]
    last = max(total - 1, 0) // count * count
    relations = [("self", offset), ("first", 0)]
    if offset > 0:
        relations.append(("previous", max(offset - count, 0)))
    if offset + count < total:
        relations.append(("next", offset + count))
    return [*relations, ("last", last)]


def _link(search_url: str, kept: Mapping[str, Any], count: int, offset: int) -> str:
    pairs = [*sorted(kept.items()), ("_count", str(count)), ("_offset", str(offset))]
    return f"{search_url}?{urlencode(pairs, doseq=True, safe=SAFE)}"


def _entry(base: str, resource: dict[str, Any], mode: str) -> dict[str, Any]:
    return {
        "fullUrl": f"{base}/{resource['resourceType']}/{resource['id']}",
        "resource": resource,
        "search": {"mode": mode},
    }


def _whole(params: Mapping[str, str | list[str]], name: str) -> int | None:
    value = params.get(name)
    if value is None:
        return None
    text = value if isinstance(value, str) else value[-1]
    if not text.isdigit():
        raise SearchError(f"{name}: {text!r} is not a whole number")
    return int(text)
