"""The FHIR server over HTTP: `/v1/benchmark-runs/{run_id}/fhir/…` with R4's RESTful API
(http.html): each interaction is one tool call on the run's started task run, answered with R4's
status codes and headers; every refusal is an OperationOutcome."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fastapi import APIRouter, Request, Response

from assay import __version__
from assay.api.dependencies import Anyone
from assay.api.fhir_http import (
    CONTROL,
    FHIR_JSON,
    FhirRoute,
    check_format,
    outcome_response,
    prefer,
    refused,
    resource_body,
    served_base,
)
from assay.api.fhir_replies import replied
from assay.api.sandbox_calls import call_in_world
from assay.errors import ToolError
from assay.served.auth import Caller
from assay.served.errors import ApiError
from assay.world.services.healthcare.fhir.capability import capability_statement
from assay.world.services.healthcare.fhir.params import searchable_types
from assay.world.services.lookup import service_for

router = APIRouter(
    prefix="/v1/benchmark-runs/{run_id}/fhir", tags=["services"], route_class=FhirRoute
)
_OUTCOME = {FHIR_JSON: {"schema": {"type": "object", "description": "an R4 OperationOutcome"}}}
RESPONSES: dict[int | str, dict[str, Any]] = {
    **{
        status: {"description": "an OperationOutcome", "content": _OUTCOME}
        for status in (400, 401, 403, 404, 405, 406, 409, 410, 412, 413, 415, 422, 503)
    },
    201: {"description": "created; Location names the new version"},
    202: {"description": "a held write: not carried out yet (an OperationOutcome)"},
    304: {"description": "not modified since the version the client holds"},
}


def _interact(
    request: Request, who: Caller, run_id: str, interaction: str, tool: str, args: dict[str, Any]
) -> Response:
    """One interaction carried out as `tool`, answered as R4 says."""
    check_format(request)
    event, live = call_in_world(request.app.state.context, who, run_id, tool, args)
    try:
        server = service_for(live, "fhir") if live is not None else None
    except ToolError:  # several FHIR servers: the call itself was refused already
        server = None
    made = bool(server is not None and event.status == "OK" and server.created)
    world_base = server.base_url if server is not None else ""
    return replied(event, interaction, request, served_base(request, run_id), world_base, made)


@router.get("/metadata", responses=RESPONSES)
async def metadata(run_id: str, request: Request, who: Anyone) -> Response:
    """The CapabilityStatement: the interactions the task run's role may carry out (every role
    of the run's tasks while none is started), the types served, their search parameters."""
    check_format(request)
    context = request.app.state.context
    context.record(who, run_id)
    world = context.run_info(run_id).benchmark.world
    served = [
        options.get("resource_types") or searchable_types()
        for kind, options in world.services.values()
        if kind.kind == "fhir"
    ]
    types = {kind for listed in served for kind in listed}
    date = world.spec.clock.isoformat().replace("+00:00", "Z")
    statement = capability_statement(
        types, _role_tools(context, who, run_id), served_base(request, run_id), date, __version__
    )
    return outcome_response(200, statement)


def _role_tools(context: Any, who: Caller, run_id: str) -> set[str]:
    info = context.run_info(run_id)
    started = context.progress.started(run_id)
    tasks: Iterable[Any] = (
        [info.benchmark.tasks[context.task_run(who, ident).task_id] for ident in started]
        if started
        else info.benchmark.tasks.values()
    )
    roles = info.benchmark.world.spec.roles
    return {tool for task in tasks for tool in roles[task.role].tools}


@router.get("/{resource_type}/{ident}/_history/{version}", responses=RESPONSES)
async def vread(
    run_id: str, resource_type: str, ident: str, version: str, request: Request, who: Anyone
) -> Response:
    """One version of a resource; ETag and Last-Modified say which."""
    if not version.isdigit():  # versions here are whole numbers: any other is none of them
        return refused("not_found", f"no version {version!r} of {resource_type}/{ident}")
    args = {"resource_type": resource_type, "id": ident, "version": int(version)}
    return _interact(request, who, run_id, "read", "fhir_vread", args)


@router.get("/{resource_type}/{ident}", responses=RESPONSES)
async def read(
    run_id: str, resource_type: str, ident: str, request: Request, who: Anyone
) -> Response:
    """The current version (410 once deleted); If-None-Match / If-Modified-Since give 304."""
    args = {"resource_type": resource_type, "id": ident}
    return _interact(request, who, run_id, "read", "fhir_read", args)


@router.put("/{resource_type}/{ident}", responses=RESPONSES)
async def update(
    run_id: str, resource_type: str, ident: str, request: Request, who: Anyone
) -> Response:
    """Replace a resource (201 when this creates it); the body's id must be the URL's (400);
    `If-Match: W/"<version>"` refuses a stale write (412)."""
    resource = await resource_body(request)
    if resource["resourceType"] != resource_type:
        return refused(
            "bad_request", f"the body is a {resource['resourceType']}, not a {resource_type}"
        )
    if resource.get("id") != ident:
        told = "has no id" if "id" not in resource else f"has id {resource['id']!r}"
        return refused("bad_request", f"the body {told}; the URL names {resource_type}/{ident}")
    args = {"resource": resource, "if_match": request.headers.get("if-match")}
    return _interact(request, who, run_id, "update", "fhir_update", args)


@router.put("/{resource_type}", responses=RESPONSES)
async def conditional_update(
    run_id: str, resource_type: str, request: Request, who: Anyone
) -> Response:
    """Conditional update `PUT /{type}?<search>`: no match creates, one is replaced, several 412."""
    resource = await resource_body(request)
    query = request.url.query
    if resource["resourceType"] != resource_type or not query:
        return refused("bad_request", f"the body is not a {resource_type} or no search given")
    args = {
        "resource": resource,
        "if_match": request.headers.get("if-match"),
        "conditional": query,
    }
    return _interact(request, who, run_id, "update", "fhir_update", args)


@router.delete("/{resource_type}/{ident}", responses=RESPONSES)
async def delete(
    run_id: str, resource_type: str, ident: str, request: Request, who: Anyone
) -> Response:
    """Delete a resource (soft: a later read is 410): 200 with an OperationOutcome; 403 unless
    the role may delete."""
    args = {"resource_type": resource_type, "id": ident}
    return _interact(request, who, run_id, "delete", "fhir_delete", args)


@router.get("/{resource_type}", responses=RESPONSES)
async def search(run_id: str, resource_type: str, request: Request, who: Anyone) -> Response:
    """Search: one page of a searchset Bundle; an unknown parameter is 400 unless
    `Prefer: handling=lenient`."""
    return _search(request, who, run_id, resource_type, request.query_params.multi_items())


@router.post("/{resource_type}/_search", responses=RESPONSES)
async def search_form(run_id: str, resource_type: str, request: Request, who: Anyone) -> Response:
    """Search with parameters in a form body and the query string, every value kept."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded" and (kind or await request.body()):
        return refused("unsupported_media_type", f"Content-Type {kind!r}: send a form")
    form = (await request.form()).multi_items() if kind else []
    pairs = [*request.query_params.multi_items(), *((k, str(v)) for k, v in form)]
    return _search(request, who, run_id, resource_type, pairs)


def _search(
    request: Request, who: Caller, run_id: str, resource_type: str, pairs: list[tuple[str, str]]
) -> Response:
    listed: dict[str, list[str]] = {}
    for name, value in pairs:
        if name not in CONTROL:
            listed.setdefault(name, []).append(value)
    params = {name: values[0] if len(values) == 1 else values for name, values in listed.items()}
    args: dict[str, Any] = {"resource_type": resource_type, "params": params}
    if prefer(request).get("handling") == "lenient":
        args["lenient"] = True
    return _interact(request, who, run_id, "search", "fhir_search", args)


@router.post("/{resource_type}", responses=RESPONSES)
async def create(run_id: str, resource_type: str, request: Request, who: Anyone) -> Response:
    """Create a resource (201 and Location); `If-None-Exist: <search>` that matches answers the
    match (200) and creates nothing."""
    resource = await resource_body(request)
    if resource["resourceType"] != resource_type:
        return refused(
            "bad_request", f"the body is a {resource['resourceType']}, not a {resource_type}"
        )
    args = {"resource": resource, "if_none_exist": request.headers.get("if-none-exist")}
    return _interact(request, who, run_id, "create", "fhir_create", args)


@router.post("", responses=RESPONSES)
@router.post("/", responses=RESPONSES, include_in_schema=False)
async def transaction(run_id: str, request: Request, who: Anyone) -> Response:
    """A transaction Bundle (all or nothing) or a batch Bundle (each entry answered alone)."""
    bundle = await resource_body(request)
    return _interact(request, who, run_id, "transaction", "fhir_transaction", {"bundle": bundle})


@router.api_route(
    "/{rest:path}",
    methods=["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"],
    include_in_schema=False,
)
async def unsupported(run_id: str, rest: str, request: Request, who: Anyone) -> Response:
    """Anything else: PATCH and conditional delete are 405, other paths 404 (not-supported)."""
    request.app.state.context.record(who, run_id)
    method = request.method
    parts = [part for part in rest.split("/") if part]
    if method == "PATCH" and len(parts) == 2:
        answer = refused("method_not_allowed", "PATCH is not supported: PUT the whole resource")
        answer.headers["Allow"] = "GET, PUT, DELETE"
        return answer
    if method == "DELETE" and len(parts) == 1:
        answer = refused("method_not_allowed", "conditional delete is not supported")
        answer.headers["Allow"] = "GET, POST, PUT"
        return answer
    raise ApiError(404, "not_supported", f"{method} {rest or '/'} is no FHIR interaction here")
