"""Every error the API returns is `{"error": {"code", "message"}}` with the right status: the
served-run layer's refusals (`assay.served.errors`), bad requests, unknown routes."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from assay.errors import SpecError, UsageError
from assay.served.errors import ApiError, error_response

HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    415: "unsupported_media_type",
    422: "invalid_request",
}


def install(app: FastAPI) -> None:
    """Turn every failure into the one error body; nothing a client sends can cause a 500."""

    @app.exception_handler(ApiError)
    async def _api(_: Request, error: ApiError) -> JSONResponse:
        return error_response(error.status, error.code, error.message)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, error: RequestValidationError) -> JSONResponse:
        problems = error.errors()
        if any(problem.get("type") == "json_invalid" for problem in problems):
            return error_response(400, "malformed_json", "the request body is not valid JSON")
        return error_response(422, "invalid_request", "; ".join(_describe(p) for p in problems[:5]))

    @app.exception_handler(HTTPException)
    async def _http(request: Request, error: HTTPException) -> JSONResponse:
        code = HTTP_CODES.get(error.status_code, "error")
        headers = error.headers
        if error.status_code == 405:  # every method the path has, not just its first route's
            headers = {**(headers or {}), "Allow": allowed_methods(request)}
        return error_response(error.status_code, code, str(error.detail), headers)

    @app.exception_handler(SpecError)
    @app.exception_handler(UsageError)
    async def _usage(_: Request, error: Exception) -> JSONResponse:
        return error_response(422, "invalid_request", str(error))


def allowed_methods(request: Request) -> str:
    """The methods of every route whose path matches the request's, as an `Allow` header."""
    path = request.url.path
    methods: set[str] = set()
    for route in request.app.routes:
        pattern = getattr(route, "path_regex", None)
        if pattern is not None and pattern.match(path):
            methods |= set(getattr(route, "methods", None) or ())
    return ", ".join(sorted(methods))


def _describe(problem: dict[str, Any]) -> str:
    where = ".".join(str(part) for part in problem.get("loc", ()) if part != "body")
    message = (
        "unknown field" if problem.get("type") == "extra_forbidden" else problem.get("msg", "")
    )
    return f"{where}: {message}" if where else str(message)
