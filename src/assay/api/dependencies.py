"""Who is calling: the operator, or the holder of a benchmark run's token (FastAPI dependencies)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from assay.api.auth import Caller

bearer = HTTPBearer(auto_error=False, description="The operator key, or a benchmark run's token.")
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


def _header(credentials: HTTPAuthorizationCredentials | None) -> str | None:
    return None if credentials is None else f"Bearer {credentials.credentials}"


async def _caller(request: Request, credentials: Credentials) -> Caller:
    return request.app.state.context.auth.caller(_header(credentials))


async def _operator(request: Request, credentials: Credentials) -> Caller:
    return request.app.state.context.auth.operator(_header(credentials))


Anyone = Annotated[Caller, Depends(_caller)]
Operator = Annotated[Caller, Depends(_operator)]
