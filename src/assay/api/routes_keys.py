"""API keys over HTTP, for the admin: create (the secret is shown once), list, revoke."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import Field

from assay.api.dependencies import Operator
from assay.errors import UsageError
from assay.runs.keys import Scope, create_key, now_stamp
from assay.served.errors import ApiError, ErrorBody
from assay.served.wire import Request as Body

router = APIRouter(prefix="/v1/keys", tags=["keys"])
RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody} for status in (400, 401, 403, 404, 413, 422)
}


class CreateKey(Body):
    scope: Scope
    name: str = Field("", max_length=200)
    expires: str | None = Field(
        None, description="a duration (30d, 12h, 15m, 90s) or an ISO-8601 time; default: never"
    )


@router.post("", status_code=201, responses=RESPONSES)
async def create(body: CreateKey, request: Request, _: Operator) -> JSONResponse:
    """A new key; `key` is its secret, shown this once and never again."""
    store = request.app.state.context.store
    try:
        secret, record = create_key(store, body.scope, body.name, body.expires)
    except UsageError as error:
        raise ApiError(422, "invalid_request", str(error).replace("--expires", "expires")) from None
    return JSONResponse({**record.as_json(now_stamp()), "key": secret}, status_code=201)


@router.get("", responses=RESPONSES)
async def list_keys(request: Request, _: Operator) -> dict[str, Any]:
    """Every key: id, name, scope, state and times; never a secret."""
    moment = now_stamp()
    return {"data": [key.as_json(moment) for key in request.app.state.context.store.api_keys()]}


@router.delete("/{key_id}", responses=RESPONSES)
async def revoke(key_id: str, request: Request, _: Operator) -> dict[str, Any]:
    """Revoke a key at once: it is refused from its next request on."""
    key = request.app.state.context.store.revoke_key(key_id)
    if key is None:
        raise ApiError(404, "not_found", f"no key {key_id!r}")
    return key.as_json(now_stamp())
