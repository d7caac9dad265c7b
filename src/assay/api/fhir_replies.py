"""How the FHIR surface answers a tool's event over HTTP (R4 http.html): status codes, `ETag`,
`Last-Modified`, an absolute `Location`, conditional reads (304), `Prefer: return=…`, links on
the served base, and faults as OperationOutcomes carrying the operation to retry."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from typing import Any

from fastapi import Request, Response
from fastapi.responses import JSONResponse

from assay.api.fhir_http import FHIR_JSON, outcome_response, prefer, refused
from assay.taskrun.observation import Event
from assay.world.services.healthcare.fhir.outcomes import informational, operation_outcome

OPERATION = "urn:assay:operation-id"  # the system of the code naming an operation to retry


def replied(
    event: Event, interaction: str, request: Request, base: str, world_base: str, made: bool
) -> Response:
    """The HTTP answer to one interaction's event.

    base: the served FHIR base; world_base: the one the server writes in Bundles (rebased here);
    made: whether the interaction created its resource (201).
    """
    if event.status == "ERROR":
        return refused(event.code or "processing", event.message or "")
    if event.status != "OK":
        return _not_done(event)
    result = event.result
    if interaction in ("search", "transaction"):
        return outcome_response(200, _rebased(result, world_base, base))
    if interaction == "delete":
        return outcome_response(200, result)
    headers = _version_headers(result)
    if interaction == "read":
        if _unchanged(request, result):
            return Response(status_code=304, headers=headers)
        return outcome_response(200, result, headers)
    if made:
        headers["Location"] = f"{base}/{_history(result)}"
    status = 201 if made else 200
    asked = prefer(request).get("return", "representation")
    if asked == "minimal":
        return Response(status_code=status, headers=headers)
    if asked == "operationoutcome":
        what = "created" if made else "updated" if interaction == "update" else "matched"
        body = informational(f"{result['resourceType']}/{result['id']} {what}")
        return outcome_response(status, body, headers)
    return outcome_response(status, result, headers)


def _version_headers(resource: dict[str, Any]) -> dict[str, str]:
    meta = resource.get("meta", {})
    headers = {}
    if "versionId" in meta:
        headers["ETag"] = f'W/"{meta["versionId"]}"'
    if "lastUpdated" in meta:
        headers["Last-Modified"] = format_datetime(
            _instant(meta["lastUpdated"]).astimezone(UTC), usegmt=True
        )
    return headers


def _unchanged(request: Request, resource: dict[str, Any]) -> bool:
    """If-None-Match naming this version, or If-Modified-Since not before it (RFC 9110 §13)."""
    meta = resource.get("meta", {})
    tags = request.headers.get("if-none-match")
    if tags is not None:
        wanted = {tag.strip().removeprefix("W/").strip('"') for tag in tags.split(",")}
        return "*" in wanted or meta.get("versionId") in wanted
    since = request.headers.get("if-modified-since")
    if since is None or "lastUpdated" not in meta:
        return False
    try:
        asked = parsedate_to_datetime(since)
    except (TypeError, ValueError):
        return False  # RFC 9110: an invalid date is ignored
    return _instant(meta["lastUpdated"]).replace(microsecond=0) <= asked


def _history(resource: dict[str, Any]) -> str:
    kind, ident = resource["resourceType"], resource["id"]
    return f"{kind}/{ident}/_history/{resource['meta']['versionId']}"


def _rebased(bundle: dict[str, Any], world_base: str, base: str) -> dict[str, Any]:
    """The Bundle with its links and fullUrls on the served base instead of the world's."""

    def moved(url: str) -> str:
        return base + url[len(world_base) :] if url.startswith(world_base) else url

    rebased = dict(bundle)
    if "link" in bundle:
        rebased["link"] = [{**link, "url": moved(link["url"])} for link in bundle["link"]]
    if "entry" in bundle:
        rebased["entry"] = [
            {**entry, "fullUrl": moved(entry["fullUrl"])} if "fullUrl" in entry else entry
            for entry in bundle["entry"]
        ]
    return rebased


def _not_done(event: Event) -> JSONResponse:
    """A held write (202) or a fault (503), naming the operation `retry_operation` takes."""
    message = event.message or ""
    details = {
        "coding": [{"system": OPERATION, "code": event.operation_id}],
        "text": f"operation {event.operation_id}: retry it with retry_operation",
    }
    if event.status == "HELD":
        body = operation_outcome("informational", message, "information", details=details)
        return JSONResponse(body, status_code=202, media_type=FHIR_JSON)
    issue_type = "timeout" if event.status == "UNKNOWN" else "transient"
    body = operation_outcome(issue_type, message, details=details)
    return JSONResponse(body, status_code=503, media_type=FHIR_JSON)


def _instant(text: str) -> datetime:
    """An R4 instant (`2026-03-02T09:01:00Z`) as an aware datetime; one without a zone is UTC."""
    when = datetime.fromisoformat(text)
    return when if when.tzinfo else when.replace(tzinfo=UTC)
