"""A refusal of a served request, whichever surface carried it: a status, a code and one line
saying why; over HTTP the body is `{"error": {"code", "message"}}`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel

if TYPE_CHECKING:
    from starlette.responses import JSONResponse


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorBody(BaseModel):
    error: ErrorDetail


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def not_found(what: str, ident: str) -> ApiError:
    return ApiError(404, "not_found", f"no {what} {ident}")


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    """The error body over HTTP (the API's, and MCP's under it)."""
    from starlette.responses import JSONResponse  # only the HTTP surfaces answer in HTTP

    if status == 401:
        headers = {**(headers or {}), "WWW-Authenticate": "Bearer"}
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=status, headers=headers
    )
