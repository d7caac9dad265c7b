"""Who is calling, as FastAPI dependencies: anyone with a valid credential, a key of some scopes,
or the admin."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from assay.api.auth import Caller

bearer = HTTPBearer(
    auto_error=False,
    description="The operator key (ASSAY_API_KEY), a key from `assay keys create`, or a benchmark "
    "run's token.",
)
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


def authorization(credentials: HTTPAuthorizationCredentials | None) -> str | None:
    """The Authorization header's value again, as `Auth` reads it."""
    return None if credentials is None else f"Bearer {credentials.credentials}"


async def _caller(request: Request, credentials: Credentials) -> Caller:
    return request.app.state.context.auth.caller(authorization(credentials))


async def _key(request: Request, credentials: Credentials) -> Caller:
    auth = request.app.state.context.auth
    return auth.require(authorization(credentials), "evaluate", "build", "admin")


async def _builder(request: Request, credentials: Credentials) -> Caller:
    return request.app.state.context.auth.require(authorization(credentials), "build", "admin")


async def _operator(request: Request, credentials: Credentials) -> Caller:
    return request.app.state.context.auth.require(authorization(credentials), "admin")


Anyone = Annotated[Caller, Depends(_caller)]
AnyKey = Annotated[Caller, Depends(_key)]  # any API key: a run token is refused
Builder = Annotated[Caller, Depends(_builder)]
Operator = Annotated[Caller, Depends(_operator)]
