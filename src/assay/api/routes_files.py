"""The shared file tree over HTTP: `GET /v1/benchmark-runs/{run_id}/files/inbox`, `GET|PUT|DELETE
…/files/{path}` and `POST …/files/move`, each one call on the run's started task run."""

from __future__ import annotations

import base64
from functools import partial

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict

from assay.api.dependencies import Anyone
from assay.api.sandbox_calls import SERVICE_RESPONSES, answer_call

router = APIRouter(prefix="/v1/benchmark-runs/{run_id}/files", tags=["services"])
STATUSES = {
    "not_found": 404,
    "no_service": 404,
    "read_only": 403,
    "bad_path": 400,
    "bad_content": 400,
    "too_large": 413,
}
RESPONSES = {**SERVICE_RESPONSES, 403: SERVICE_RESPONSES[404]}


class Move(BaseModel):
    model_config = ConfigDict(extra="forbid")

    src: str
    dst: str


_call = partial(answer_call, STATUSES)


@router.get("", responses=RESPONSES)
async def listing(run_id: str, request: Request, who: Anyone, prefix: str = "") -> JSONResponse:
    """The live files of the tree whose paths start with `prefix`."""
    return _call(request, who, run_id, "files_list", {"prefix": prefix})


@router.get("/inbox", responses=RESPONSES)
async def inbox(run_id: str, request: Request, who: Anyone) -> JSONResponse:
    """The files under inbox/."""
    return _call(request, who, run_id, "files_list", {"prefix": "inbox/"})


@router.post("/move", responses=RESPONSES)
async def move(run_id: str, body: Move, request: Request, who: Anyone) -> JSONResponse:
    """Move a file to a writable place."""
    return _call(request, who, run_id, "files_move", {"src": body.src, "dst": body.dst})


@router.get("/{path:path}", responses=RESPONSES)
async def read(run_id: str, path: str, request: Request, who: Anyone) -> JSONResponse:
    """One file: its text, or base64 when binary."""
    return _call(request, who, run_id, "files_read", {"path": path})


@router.put("/{path:path}", responses=RESPONSES)
async def write(run_id: str, path: str, request: Request, who: Anyone) -> JSONResponse:
    """Write the request body as the file (created, or replaced whole)."""
    data = await request.body()
    try:
        content, encoding = data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        content, encoding = base64.b64encode(data).decode("ascii"), "base64"
    args = {"path": path, "content": content, "encoding": encoding}
    return _call(request, who, run_id, "files_write", args)


@router.delete("/{path:path}", responses=RESPONSES)
async def delete(run_id: str, path: str, request: Request, who: Anyone) -> JSONResponse:
    """Delete a file where writing is allowed."""
    return _call(request, who, run_id, "files_delete", {"path": path})
