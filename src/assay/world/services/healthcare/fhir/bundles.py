"""Transaction and batch Bundles (docs/contracts/healthcare.md §2.1): a transaction is all or
nothing (the tool call's savepoint undoes every write when one entry fails), a batch answers each
entry on its own; `urn:uuid:` fullUrls of created entries are rewritten to the ids the server
gives."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from assay.errors import ServiceError
from assay.world.services.healthcare.fhir.outcomes import refusal
from assay.world.services.healthcare.fhir.search import SearchError
from assay.world.services.healthcare.fhir.validate import InvalidResource

ORDER = {"DELETE": 0, "POST": 1, "PUT": 2, "GET": 3}  # the order R4 processes a transaction in
REASONS = {200: "200 OK", 201: "201 Created", 204: "204 No Content"}


def run_bundle(server: Any, bundle: dict[str, Any]) -> dict[str, Any]:
    kind = bundle.get("type")
    if bundle.get("resourceType") != "Bundle" or kind not in ("transaction", "batch"):
        raise ServiceError("invalid", "Bundle.type: send a transaction or a batch Bundle")
    entries = list(enumerate(bundle.get("entry", [])))
    renamed = _new_ids(server, entries)
    answers: dict[int, dict[str, Any]] = {}
    for index, entry in sorted(entries, key=lambda pair: ORDER.get(_method(pair[1]) or "", 4)):
        try:
            answers[index] = _checked_answer(server, entry, renamed)
        except ServiceError as error:
            if kind == "transaction":
                raise ServiceError(error.code, f"Bundle.entry[{index}]: {error.message}") from None
            status, outcome = refusal(error.code, f"Bundle.entry[{index}]: {error.message}")
            answers[index] = {"response": {"status": str(status), "outcome": outcome}}
    return {
        "resourceType": "Bundle",
        "type": f"{kind}-response",
        "entry": [answers[index] for index, _ in entries],
    }


def _checked_answer(server: Any, entry: Any, renamed: dict[str, str]) -> dict[str, Any]:
    """One entry's answer; every refusal of it a ServiceError, so a batch answers it alone."""
    if _method(entry) not in ORDER:
        raise ServiceError("bad_request", "request.method: use GET, POST, PUT or DELETE")
    try:
        return _answer(server, _renamed(entry, renamed), renamed.get(entry.get("fullUrl", "")))
    except InvalidResource as invalid:
        raise ServiceError(invalid.code, str(invalid)) from None
    except SearchError as error:
        raise ServiceError("bad_request", str(error)) from None


def _method(entry: Any) -> str | None:
    request = entry.get("request") if isinstance(entry, dict) else None
    return request.get("method") if isinstance(request, dict) else None


def _new_ids(server: Any, entries: list[tuple[int, dict[str, Any]]]) -> dict[str, str]:
    """`urn:uuid:…` → `Type/id` for each created entry, in entry order (ids are deterministic)."""
    renamed = {}
    for _, entry in entries:
        full = entry.get("fullUrl", "") if isinstance(entry, dict) else ""
        if _method(entry) == "POST" and isinstance(full, str) and full.startswith("urn:uuid:"):
            kind = entry.get("resource", {}).get("resourceType", "Resource")
            renamed[full] = f"{kind}/{server._new_id(kind)}"
    return renamed


def _renamed(value: Any, renamed: dict[str, str]) -> Any:
    if isinstance(value, str):
        return renamed.get(value, value)
    if isinstance(value, list):
        return [_renamed(item, renamed) for item in value]
    if isinstance(value, dict):
        return {key: _renamed(item, renamed) for key, item in value.items()}
    return value


def _answer(server: Any, entry: dict[str, Any], given: str | None) -> dict[str, Any]:
    """One entry carried out as its own interaction, answered as R4 Bundle.entry.response."""
    request = entry["request"]
    method, url = request["method"], request.get("url", "")
    path, _, query = url.partition("?")
    parts = [part for part in path.split("/") if part]
    if not parts:
        raise ServiceError("bad_request", f"request.url: {url!r} names no resource type")
    if method == "GET":
        return _read(server, parts, query)
    if method == "DELETE":
        server._delete(*_type_and_id(parts, url))
        return {"response": {"status": REASONS[204]}}
    resource = entry.get("resource", {})
    if method == "POST":
        made = server._create(resource, request.get("ifNoneExist"), given_id=given)
    elif query and len(parts) == 1:  # conditional update: PUT Patient?identifier=…
        made = server._update(resource, request.get("ifMatch"), conditional=query)
    else:
        _, ident = _type_and_id(parts, url)
        if resource.get("id", ident) != ident:
            raise ServiceError("bad_request", f"resource.id {resource['id']!r} is not {ident!r}")
        made = server._update({**resource, "id": ident}, request.get("ifMatch"))
    version = made["meta"]["versionId"]
    response = {
        "status": REASONS[201 if server.created else 200],
        "location": f"{made['resourceType']}/{made['id']}/_history/{version}",
        "etag": f'W/"{version}"',
        "lastModified": made["meta"]["lastUpdated"],
    }
    return {"resource": made, "response": response}


def _read(server: Any, parts: list[str], query: str) -> dict[str, Any]:
    if len(parts) == 1:
        found = server._search(parts[0], parse_qs(query, keep_blank_values=True))
        return {"resource": found, "response": {"status": REASONS[200]}}
    if len(parts) == 4 and parts[2] == "_history" and parts[3].isdigit():
        found = server._vread(parts[0], parts[1], int(parts[3]))
    elif len(parts) == 2:
        found = server._read(*parts)
    else:
        raise ServiceError("not_supported", f"GET {'/'.join(parts)} is not an interaction here")
    version = found["meta"]["versionId"]
    response = {"status": REASONS[200], "etag": f'W/"{version}"'}
    return {"resource": found, "response": response}


def _type_and_id(parts: list[str], url: str) -> tuple[str, str]:
    if len(parts) != 2:
        raise ServiceError("bad_request", f"request.url: {url!r} is not Type/id")
    return parts[0], parts[1]
