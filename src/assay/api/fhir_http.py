"""R4's HTTP rules for the FHIR surface (http.html): the served base URL, `_format` and `Accept`,
`Prefer`, bodies read within a depth limit, and every refusal as an OperationOutcome."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException

from assay.api.errors import HTTP_CODES
from assay.served.errors import ApiError
from assay.world.services.healthcare.fhir.limits import MAX_DEPTH, too_deep
from assay.world.services.healthcare.fhir.outcomes import operation_outcome, refusal

FHIR_JSON = "application/fhir+json"
FHIR_PATH = re.compile(r"^/v1/benchmark-runs/[^/]+/fhir(/|$)")  # where errors are OperationOutcomes
JSON_TYPES = {"application/fhir+json", "application/json", "application/json+fhir", "json"}
ANY_TYPES = {"*/*", "application/*", ""}
CONTROL = ("_format", "_pretty")  # about the HTTP answer, not the search


def outcome_response(
    status: int, body: dict[str, Any], headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=headers, media_type=FHIR_JSON)


def refused(code: str, message: str, status: int | None = None) -> JSONResponse:
    """The OperationOutcome answer to a refusal `code` (the server's, or the API's with `status`)."""
    answer, body = refusal(code, message, status)
    headers = {"WWW-Authenticate": "Bearer"} if answer == 401 else None
    return outcome_response(answer, body, headers)


class FhirRoute(APIRoute):
    """A route whose every failure, down to authentication and path parameters, answers an
    OperationOutcome (R4 http.html: errors SHOULD carry one)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def answer(request: Request) -> Response:
            try:
                return await handler(request)
            except ApiError as error:  # Rejected (a call the role may not make) is one too
                return refused(error.code, error.message, error.status)
            except RequestValidationError as error:
                problem = error.errors()[0] if error.errors() else {}
                where = ".".join(str(part) for part in problem.get("loc", ()))
                return refused("bad_request", f"{where}: {problem.get('msg', 'invalid')}")
            except HTTPException as error:
                code = HTTP_CODES.get(error.status_code, "processing")
                return refused(code, str(error.detail), error.status_code)

        return answer


def served_base(request: Request, run_id: str) -> str:
    """This server's FHIR base as the client reached it (R4 links and Location are absolute)."""
    return f"{str(request.base_url).rstrip('/')}/v1/benchmark-runs/{run_id}/fhir"


def check_format(request: Request) -> None:
    """`_format` or else `Accept` must allow JSON; XML and the rest are 406 (R4 http.html#mime)."""
    asked = request.query_params.get("_format")
    if asked is not None:
        if asked.split(";")[0].strip().lower() not in JSON_TYPES:
            raise ApiError(406, "not_acceptable", f"_format {asked!r}: this server speaks JSON")
        return
    accept = request.headers.get("accept", "")
    ranges = {part.split(";")[0].strip().lower() for part in accept.split(",")}
    if not ranges & (JSON_TYPES | ANY_TYPES):
        raise ApiError(406, "not_acceptable", f"Accept {accept!r}: this server speaks JSON")


def prefer(request: Request) -> dict[str, str]:
    """The `Prefer` header (RFC 7240) as name → value, e.g. {"return": "minimal"}."""
    found = {}
    for part in request.headers.get("prefer", "").split(","):
        name, _, value = part.strip().partition("=")
        if name:
            found[name.strip().lower()] = value.strip().strip('"').lower()
    return found


async def resource_body(request: Request) -> dict[str, Any]:
    """The body as one JSON object: 415 for XML or another type, 400 for bad or too deep JSON."""
    kind = request.headers.get("content-type", FHIR_JSON).split(";")[0].strip().lower()
    if kind not in JSON_TYPES:
        raise ApiError(415, "unsupported_media_type", f"Content-Type {kind!r}: send FHIR JSON")
    raw = await request.body()
    try:
        data = json.loads(raw)
    except RecursionError:
        raise ApiError(400, "too_deep", f"the body nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as error:
        raise ApiError(400, "structure", f"the body is not valid JSON: {error}") from None
    if too_deep(data):
        raise ApiError(400, "too_deep", f"the body nests deeper than {MAX_DEPTH} levels")
    if not isinstance(data, dict) or not isinstance(data.get("resourceType"), str):
        raise ApiError(400, "structure", "the body must be one FHIR resource, with resourceType")
    return data


def too_large(message: str) -> JSONResponse:
    """413 as an OperationOutcome, for a body past the API's limit; the connection closes."""
    body = operation_outcome("too-long", message)
    return outcome_response(413, body, {"connection": "close"})
