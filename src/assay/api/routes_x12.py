"""The clearinghouse over HTTP: `POST /v1/benchmark-runs/{run_id}/x12/eligibility`,
`…/x12/claim-status` and `…/x12/claims`, each one call on the run's started task run."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict

from assay.api.dependencies import Anyone
from assay.api.sandbox_calls import SERVICE_RESPONSES, answer_call

router = APIRouter(prefix="/v1/benchmark-runs/{run_id}/x12", tags=["services"])
STATUSES = {"bad_x12": 400, "no_service": 404}


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Eligibility(Strict):
    member_id: str | None = None
    payer_id: str | None = None
    dob: str | None = None
    service_type: str = "30"
    raw_270: str | None = None


class ClaimStatus(Strict):
    claim_id: str | None = None
    member_id: str | None = None
    payer_id: str | None = None
    raw_276: str | None = None


class Claims(Strict):
    raw_837: str


_call = partial(answer_call, STATUSES)


@router.post("/eligibility", responses=SERVICE_RESPONSES)
async def eligibility(
    run_id: str, body: Eligibility, request: Request, who: Anyone
) -> JSONResponse:
    """A 270 (from the fields, or raw); the payer's 271, raw and summarised."""
    return _call(request, who, run_id, "x12_eligibility", body.model_dump())


@router.post("/claim-status", responses=SERVICE_RESPONSES)
async def claim_status(
    run_id: str, body: ClaimStatus, request: Request, who: Anyone
) -> JSONResponse:
    """A 276 (from the fields, or raw); the payer's 277, raw and summarised."""
    return _call(request, who, run_id, "x12_claim_status", body.model_dump())


@router.post("/claims", responses=SERVICE_RESPONSES)
async def claims(run_id: str, body: Claims, request: Request, who: Anyone) -> JSONResponse:
    """An 837 interchange; the 999 acknowledgment and a 277CA."""
    return _call(request, who, run_id, "x12_submit", body.model_dump())
