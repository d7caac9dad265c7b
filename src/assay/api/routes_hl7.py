"""The HL7 interface over HTTP: `GET /v1/benchmark-runs/{run_id}/hl7/inbox` and
`POST …/hl7/outbound {"payload": "<raw HL7>"}`, each one call on the run's started task run."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict

from assay.api.dependencies import Anyone
from assay.api.sandbox_calls import SERVICE_RESPONSES, answer_call

router = APIRouter(prefix="/v1/benchmark-runs/{run_id}/hl7", tags=["services"])
STATUSES = {"no_service": 404}


class Outbound(BaseModel):
    model_config = ConfigDict(extra="forbid")

    payload: str


_call = partial(answer_call, STATUSES)


@router.get("/inbox", responses=SERVICE_RESPONSES)
async def inbox(run_id: str, request: Request, who: Anyone) -> JSONResponse:
    """The HL7 messages waiting for the hospital."""
    return _call(request, who, run_id, "hl7_inbox", {})


@router.post("/outbound", responses=SERVICE_RESPONSES)
async def outbound(run_id: str, body: Outbound, request: Request, who: Anyone) -> JSONResponse:
    """Send one HL7 v2 message; the interface's ACKs (`acks`, the last as `ack`) and codes."""
    return _call(request, who, run_id, "hl7_send", {"message": body.payload})
