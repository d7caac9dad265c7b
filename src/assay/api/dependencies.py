"""Who is calling, as FastAPI dependencies: anyone with a valid credential, a key of some scopes,
or the admin."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPBearer

from assay.runs.keys import Scope
from assay.served.auth import Caller

DESCRIPTION = (
    "The operator key (ASSAY_API_KEY), a key from `assay keys create`, or a benchmark run's token."
)


class Bearer(HTTPBearer):
    """The bearer scheme as OpenAPI documents it, yielding the caller itself in one step (no
    credentials object in between): every request pays for this dependency."""

    def __init__(self, *scopes: Scope):
        super().__init__(auto_error=False, scheme_name="HTTPBearer", description=DESCRIPTION)
        self.scopes = scopes

    async def __call__(self, request: Request) -> Caller:  # type: ignore[override]
        auth = request.app.state.context.auth
        header = request.headers.get("authorization")
        return auth.require(header, *self.scopes) if self.scopes else auth.caller(header)


Anyone = Annotated[Caller, Depends(Bearer())]
AnyKey = Annotated[Caller, Depends(Bearer("evaluate", "build", "admin"))]  # a run token is refused
Builder = Annotated[Caller, Depends(Bearer("build", "admin"))]
Operator = Annotated[Caller, Depends(Bearer("admin"))]
