"""Transaction and batch Bundles (SPEC §3.2): a transaction is all or nothing (the tool call's
savepoint undoes every write when one entry fails), a batch answers each entry on its own;
`urn:uuid:` fullUrls of created entries are rewritten to the ids the server gives."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from assay.errors import ServiceError

ORDER = {"DELETE": 0, "POST": 1, "PUT": 2, "GET": 3}  # the order R4 processes a transaction in
STATUS = {"POST": "201 Created", "PUT": "200 OK", "DELETE": "204 No Content", "GET": "200 OK"}
ERROR_STATUS = {
    "not_found": 404,
    "gone": 410,
    "conflict": 409,
    "precondition_failed": 412,
    "bad_request": 400,
}


def run_bundle(server: Any, bundle: dict[str, Any]) -> dict[str, Any]:
    kind = bundle.get("type")
    if bundle.get("resourceType") != "Bundle" or kind not in ("transaction", "batch"):
        raise ServiceError("invalid", "Bundle.type: send a transaction or a batch Bundle")
    entries = list(enumerate(bundle.get("entry", [])))
    for index, entry in entries:
        method = entry.get("request", {}).get("method")
        if method not in ORDER:
            raise ServiceError(
                "invalid", f"Bundle.entry[{index}].request.method: use GET, POST, PUT or DELETE"
            )
    renamed = _new_ids(server, entries)
    answers: dict[int, dict[str, Any]] = {}
    for index, entry in sorted(entries, key=lambda pair: ORDER[pair[1]["request"]["method"]]):
        try:
            answers[index] = _answer(
                server, _renamed(entry, renamed), renamed.get(entry.get("fullUrl", ""))
            )
        except ServiceError as error:
            if kind == "transaction":
                raise ServiceError(error.code, f"Bundle.entry[{index}]: {error.message}") from None
            status = ERROR_STATUS.get(error.code, 422)
            answers[index] = {"response": {"status": str(status), "outcome": _outcome(error)}}
    return {
        "resourceType": "Bundle",
        "type": f"{kind}-response",
        "entry": [answers[index] for index, _ in entries],
    }


def _new_ids(server: Any, entries: list[tuple[int, dict[str, Any]]]) -> dict[str, str]:
    """`urn:uuid:…` → `Type/id` for each created entry, in entry order (ids are deterministic)."""
    renamed = {}
    for _, entry in entries:
        full = entry.get("fullUrl", "")
        if entry["request"]["method"] == "POST" and full.startswith("urn:uuid:"):
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
    request = entry["request"]
    method, url = request["method"], request.get("url", "")
    path, _, query = url.partition("?")
    parts = [part for part in path.split("/") if part]
    if method == "GET":
        found = (
            server._search(parts[0], dict(parse_qsl(query)))
            if len(parts) == 1
            else server._read(*parts[:2])
        )
        return {"resource": found, "response": {"status": STATUS[method]}}
    if method == "DELETE":
        server._delete(*parts[:2])
        return {"response": {"status": STATUS[method]}}
    resource = entry.get("resource", {})
    if method == "POST":
        made = server._create(resource, request.get("ifNoneExist"), given_id=given)
    elif query and len(parts) == 1:  # conditional update: PUT Patient?identifier=…
        made = server._update(resource, request.get("ifMatch"), conditional=query)
    else:
        made = server._update(
            {**resource, "id": parts[1] if len(parts) > 1 else resource.get("id")},
            request.get("ifMatch"),
        )
    location = f"{made['resourceType']}/{made['id']}/_history/{made['meta']['versionId']}"
    return {"resource": made, "response": {"status": STATUS[method], "location": location}}


def _outcome(error: ServiceError) -> dict[str, Any]:
    return {
        "resourceType": "OperationOutcome",
        "issue": [{"severity": "error", "code": error.code, "diagnostics": error.message}],
    }
