"""The FHIR server over HTTP: `/v1/benchmark-runs/{run_id}/fhir/…` with R4's REST shape
(`application/fhir+json`, OperationOutcome errors, Location on create, If-None-Exist, If-Match);
each interaction is one call on the run's started task run."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from assay.api.auth import Caller
from assay.api.dependencies import Anyone
from assay.api.errors import ApiError, ErrorBody
from assay.api.sandbox_calls import call_on_started
from assay.taskrun.observation import Event
from assay.world.services.healthcare.fhir.params import known, searchable_types

router = APIRouter(prefix="/v1/benchmark-runs/{run_id}/fhir", tags=["services"])
FHIR_JSON = "application/fhir+json"
STATUSES = {
    "bad_request": 400,
    "not_found": 404,
    "no_service": 404,
    "conflict": 409,
    "gone": 410,
    "precondition_failed": 412,
    "invalid": 422,
    "code_invalid": 422,
}
RESPONSES: dict[int | str, dict[str, Any]] = {
    **{status: {"model": ErrorBody} for status in (400, 401, 404, 409, 410, 412, 413, 422, 503)},
    201: {"description": "created; Location names the new resource"},
    202: {"description": "a held write: not carried out yet"},
}


def outcome(status: int, code: str, text: str, extra: dict[str, Any] | None = None) -> JSONResponse:
    """An OperationOutcome; `error` carries the API's usual code and message as well."""
    body = {
        "resourceType": "OperationOutcome",
        "issue": [{"severity": "error", "code": code, "diagnostics": text}],
        "error": {"code": code, "message": text, **(extra or {})},
    }
    return JSONResponse(body, status_code=status, media_type=FHIR_JSON)


def answer(event: Event, created: bool = False) -> JSONResponse:
    if event.status == "OK":
        headers = {}
        result = event.result
        if created and isinstance(result, dict) and "id" in result:
            version = result.get("meta", {}).get("versionId", "1")
            headers["Location"] = f"{result['resourceType']}/{result['id']}/_history/{version}"
        return JSONResponse(
            result, status_code=201 if headers else 200, headers=headers, media_type=FHIR_JSON
        )
    if event.status == "ERROR":
        code = event.code or "error"
        return outcome(STATUSES.get(code, 422), code, event.message or "")
    if event.status == "HELD":
        body = {"held": True, "message": event.message, "operation_id": event.operation_id}
        return JSONResponse(body, status_code=202)
    code = "unknown_outcome" if event.status == "UNKNOWN" else "failed"
    return outcome(503, code, event.message or "", {"operation_id": event.operation_id})


def _call(
    request: Request,
    who: Caller,
    run_id: str,
    tool: str,
    args: dict[str, Any],
    created: bool = False,
) -> JSONResponse:
    return answer(call_on_started(request.app.state.context, who, run_id, tool, args), created)


async def _resource(request: Request) -> dict[str, Any]:
    try:
        data = await request.json()
    except ValueError:
        raise ApiError(400, "malformed_json", "the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise ApiError(422, "invalid", "the request body must be one FHIR resource")
    return data


@router.get("/metadata", responses=RESPONSES)
async def metadata(run_id: str, request: Request, who: Anyone) -> JSONResponse:
    """The server's CapabilityStatement (not an action of the task run)."""
    context = request.app.state.context
    context.record(who, run_id)
    world = context.run_info(run_id).benchmark.world
    kinds = [options for kind, options in world.services.values() if kind.kind == "fhir"]
    served = [options.get("resource_types") or searchable_types() for options in kinds]
    types = sorted({t for listed in served for t in listed})
    statement = {
        "resourceType": "CapabilityStatement",
        "status": "active",
        "kind": "instance",
        "fhirVersion": "4.0.1",
        "format": ["json"],
        "rest": [
            {
                "mode": "server",
                "resource": [_capability(t) for t in types],
                "interaction": [{"code": "transaction"}, {"code": "batch"}],
            }
        ],
    }
    return JSONResponse(statement, media_type=FHIR_JSON)


def _capability(resource_type: str) -> dict[str, Any]:
    """What the server does with one type: its interactions and search parameters."""
    codes = ("read", "vread", "search-type", "create", "update", "delete")
    return {
        "type": resource_type,
        "interaction": [{"code": code} for code in codes],
        "versioning": "versioned",
        "conditionalCreate": True,
        "conditionalUpdate": True,
        "searchParam": [
            {"name": name, "type": kind}
            for name, (kind, *_) in sorted(known(resource_type).items())
        ],
    }


@router.get("/{resource_type}/{ident}/_history/{version}", responses=RESPONSES)
async def vread(
    run_id: str, resource_type: str, ident: str, version: int, request: Request, who: Anyone
) -> JSONResponse:
    """One version of a resource."""
    args = {"resource_type": resource_type, "id": ident, "version": version}
    return _call(request, who, run_id, "fhir_vread", args)


@router.get("/{resource_type}/{ident}", responses=RESPONSES)
async def read(
    run_id: str, resource_type: str, ident: str, request: Request, who: Anyone
) -> JSONResponse:
    """The current version of a resource (410 once deleted)."""
    return _call(request, who, run_id, "fhir_read", {"resource_type": resource_type, "id": ident})


@router.put("/{resource_type}/{ident}", responses=RESPONSES)
async def update(
    run_id: str, resource_type: str, ident: str, request: Request, who: Anyone
) -> JSONResponse:
    """Replace a resource; `If-Match: W/"<version>"` refuses a stale write (412)."""
    resource = await _resource(request)
    if resource.get("resourceType") != resource_type or resource.get("id", ident) != ident:
        return outcome(400, "bad_request", f"the body is not {resource_type}/{ident}")
    args = {"resource": {**resource, "id": ident}, "if_match": request.headers.get("if-match")}
    return _call(request, who, run_id, "fhir_update", args)


@router.put("/{resource_type}", responses=RESPONSES)
async def conditional_update(
    run_id: str, resource_type: str, request: Request, who: Anyone
) -> JSONResponse:
    """Conditional update `PUT /{type}?<search>`: no match creates, one is replaced, several 412."""
    resource = await _resource(request)
    query = request.url.query
    if resource.get("resourceType") != resource_type or not query:
        return outcome(400, "bad_request", f"the body is not a {resource_type} or no search given")
    args = {
        "resource": resource,
        "if_match": request.headers.get("if-match"),
        "conditional": query,
    }
    return _call(request, who, run_id, "fhir_update", args)


@router.delete("/{resource_type}/{ident}", responses=RESPONSES)
async def delete(
    run_id: str, resource_type: str, ident: str, request: Request, who: Anyone
) -> JSONResponse:
    """Delete a resource (soft: a later read is 410)."""
    return _call(request, who, run_id, "fhir_delete", {"resource_type": resource_type, "id": ident})


@router.get("/{resource_type}", responses=RESPONSES)
async def search(run_id: str, resource_type: str, request: Request, who: Anyone) -> JSONResponse:
    """Search: a searchset Bundle; an unknown parameter is 400."""
    params = _repeated(request.query_params.multi_items())
    return _call(
        request, who, run_id, "fhir_search", {"resource_type": resource_type, "params": params}
    )


@router.post("/{resource_type}/_search", responses=RESPONSES)
async def search_form(
    run_id: str, resource_type: str, request: Request, who: Anyone
) -> JSONResponse:
    """Search with the parameters in a form body."""
    params = _repeated((await request.form()).multi_items())
    return _call(
        request, who, run_id, "fhir_search", {"resource_type": resource_type, "params": params}
    )


def _repeated(items: list[tuple[str, Any]]) -> dict[str, str | list[str]]:
    """Query or form parameters; a repeated one becomes a list (each value ANDed in search)."""
    params: dict[str, Any] = {}
    for key, value in items:
        if key not in params:
            params[key] = str(value)
        elif isinstance(params[key], list):
            params[key].append(str(value))
        else:
            params[key] = [params[key], str(value)]
    return params


@router.post("/{resource_type}", responses=RESPONSES)
async def create(run_id: str, resource_type: str, request: Request, who: Anyone) -> JSONResponse:
    """Create a resource (201 and Location); `If-None-Exist: <search>` returns a match instead."""
    resource = await _resource(request)
    if resource.get("resourceType") != resource_type:
        return outcome(400, "bad_request", f"the body is not a {resource_type}")
    args = {"resource": resource, "if_none_exist": request.headers.get("if-none-exist")}
    return _call(request, who, run_id, "fhir_create", args, created=True)


@router.post("/", responses=RESPONSES)
async def transaction(run_id: str, request: Request, who: Anyone) -> JSONResponse:
    """A transaction Bundle (all or nothing) or a batch Bundle; the response Bundle."""
    bundle = await _resource(request)
    return _call(request, who, run_id, "fhir_transaction", {"bundle": bundle})
