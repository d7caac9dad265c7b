"""The voice line over HTTP: `/v1/benchmark-runs/{run_id}/voice/calls…`, each request one call on
the run's started task run."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict

from assay.api.dependencies import Anyone
from assay.api.sandbox_calls import SERVICE_RESPONSES, answer_call

router = APIRouter(prefix="/v1/benchmark-runs/{run_id}/voice", tags=["services"])
STATUSES = {"no_answer": 404, "no_call": 404, "call_ended": 409, "no_service": 404}


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Dial(Strict):
    number: str


class Speech(Strict):
    text: str


class Keys(Strict):
    digits: str


_call = partial(answer_call, STATUSES)


@router.post("/calls", responses=SERVICE_RESPONSES)
async def dial(run_id: str, body: Dial, request: Request, who: Anyone) -> JSONResponse:
    """Call a number on the voice line; the call's id and the line's first words."""
    return _call(request, who, run_id, "voice_call", {"number": body.number})


@router.post("/calls/{call_id}/say", responses=SERVICE_RESPONSES)
async def say(
    run_id: str, call_id: str, body: Speech, request: Request, who: Anyone
) -> JSONResponse:
    """Say something on a call; the line's answer."""
    return _call(request, who, run_id, "voice_say", {"call_id": call_id, "text": body.text})


@router.post("/calls/{call_id}/press", responses=SERVICE_RESPONSES)
async def press(
    run_id: str, call_id: str, body: Keys, request: Request, who: Anyone
) -> JSONResponse:
    """Press keys during a call; the line's answer."""
    return _call(request, who, run_id, "voice_press", {"call_id": call_id, "digits": body.digits})


@router.post("/calls/{call_id}/hangup", responses=SERVICE_RESPONSES)
async def hangup(run_id: str, call_id: str, request: Request, who: Anyone) -> JSONResponse:
    """Hang up a call."""
    return _call(request, who, run_id, "voice_hangup", {"call_id": call_id})
