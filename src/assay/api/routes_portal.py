"""The payer portal over HTTP: `/v1/benchmark-runs/{run_id}/portal/…`, the prior-auth shape and a
generic one for every keyed resource; each request one call on the run's started task run."""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Body, Request
from fastapi.responses import JSONResponse

from assay.api.dependencies import Anyone
from assay.api.sandbox_calls import SERVICE_RESPONSES, answer_call
from assay.served.errors import ApiError

router = APIRouter(prefix="/v1/benchmark-runs/{run_id}/portal", tags=["services"])
STATUSES = {"not_found": 404, "conflict": 409, "validation_failed": 422, "no_service": 404}
PRIOR_AUTH = "prior_auth"
Record = Annotated[dict[str, Any], Body()]  # the whole JSON body is the record


_call = partial(answer_call, STATUSES)


@router.post("/prior-auths", responses=SERVICE_RESPONSES)
async def submit_prior_auth(
    run_id: str, request: Request, who: Anyone, data: Record
) -> JSONResponse:
    """Submit a prior authorisation; it comes back with its request id and determination."""
    return _call(request, who, run_id, "portal_submit", {"resource": PRIOR_AUTH, "data": data})


@router.get("/prior-auths/{key}", responses=SERVICE_RESPONSES)
async def get_prior_auth(run_id: str, key: str, request: Request, who: Anyone) -> JSONResponse:
    """One prior authorisation, by its request id."""
    return _call(request, who, run_id, "portal_get", {"resource": PRIOR_AUTH, "key": key})


@router.post("/{resource}", responses=SERVICE_RESPONSES)
async def submit(run_id: str, resource: str, request: Request, who: Anyone) -> JSONResponse:
    """Submit a new record of a resource (the JSON body)."""
    data = await _record(request)
    return _call(request, who, run_id, "portal_submit", {"resource": resource, "data": data})


@router.get("/{resource}", responses=SERVICE_RESPONSES)
async def search(run_id: str, resource: str, request: Request, who: Anyone) -> JSONResponse:
    """Every record of a resource whose fields equal the query parameters (`/patients`,
    `/providers?plan=GOLD%20PPO`)."""
    args = {"resource": resource, "filters": dict(request.query_params)}
    return _call(request, who, run_id, "portal_search", args)


@router.put("/{resource}/{key}", responses=SERVICE_RESPONSES)
async def update(
    run_id: str, resource: str, key: str, request: Request, who: Anyone
) -> JSONResponse:
    """Change the fields of a record that the JSON body gives."""
    args = {"resource": resource, "key": key, "data": await _record(request)}
    return _call(request, who, run_id, "portal_update", args)


@router.get("/{resource}/{key}", responses=SERVICE_RESPONSES)
async def get(run_id: str, resource: str, key: str, request: Request, who: Anyone) -> JSONResponse:
    """One record."""
    return _call(request, who, run_id, "portal_get", {"resource": resource, "key": key})


async def _record(request: Request) -> dict[str, Any]:
    try:
        data = await request.json()
    except ValueError:
        raise ApiError(400, "malformed_json", "the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise ApiError(422, "invalid_record", "the request body must be a JSON object")
    return data
