"""The 277 (005010X212) answering a 276: payer (2000A), receiver (2000B), provider (2000C) and
subscriber (2000D) with the claim (2200D): the 276's trace back in TRN*2, its BHT03 back in
BHT03, the claim's STC from claims.csv (A4:35 when it is not found) and its identifiers."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from assay.world.services.healthcare.x12.build import money, nm1, segment

RECEIVER = {"last": "GENERAL HOSPITAL", "id": "GENHOSP01"}
PROVIDER = {"last": "GENERAL HOSPITAL", "qualifier": "XX", "id": "1234567893"}


def status_body(
    ask: dict[str, Any],
    payer: dict[str, str] | None,
    claim: dict[str, str] | None,
    member: dict[str, str] | None,
    now: datetime,
) -> list[str]:
    """The 277's segments after ST."""
    receiver = ask.get("receiver") or RECEIVER
    provider = ask.get("provider") or PROVIDER
    person = member or {"last": ask.get("last", ""), "first": ask.get("first", "")}
    return [
        "277",
        segment(
            "BHT",
            "0010",
            "08",
            ask.get("reference") or "STATUS",
            f"{now:%Y%m%d}",
            f"{now:%H%M}",
            "DG",
        ),
        "HL*1**20*1",
        nm1(
            "PR",
            False,
            payer["name"] if payer else "PAYER",
            qualifier="PI",
            ident=ask.get("payer_id", ""),
        ),
        "HL*2*1*21*1",
        nm1("41", False, receiver.get("last", ""), qualifier="46", ident=receiver.get("id", "")),
        "HL*3*2*19*1",
        nm1(
            "1P",
            False,
            provider.get("last", ""),
            qualifier=provider.get("qualifier") or "XX",
            ident=provider.get("id", ""),
        ),
        "HL*4*3*22*0",
        nm1(
            "IL",
            True,
            person.get("last", ""),
            person.get("first", ""),
            "MI",
            ask.get("member_id", ""),
        ),
        *_claim(ask, claim, now),
    ]


def _claim(ask: dict[str, Any], claim: dict[str, str] | None, now: datetime) -> list[str]:
    """2200D: TRN*2 with the 276's trace, the STC, the claim's REF identifiers and the DTP*472."""
    trace = ask.get("trace") or ask.get("claim_id") or "0"
    if claim is None:
        stc = segment("STC", "A4:35", f"{now:%Y%m%d}")
        payer_number, patient_number = (
            ask.get("payer_claim_number"),
            ask.get("patient_control_number"),
        )
    else:
        charge = money(claim.get("charge") or ask.get("charge") or claim.get("paid") or "0")
        status = f"{claim['status_category']}:{claim['status_code']}"
        stc = segment("STC", status, f"{now:%Y%m%d}", "", charge, money(claim.get("paid") or "0"))
        payer_number, patient_number = claim["claim_id"], claim["claim_id"]
    found = [segment("TRN", "2", trace), stc]
    if payer_number:
        found.append(segment("REF", "1K", payer_number))
    if patient_number:
        found.append(segment("REF", "EJ", patient_number))
    if ask.get("service_date"):
        found.append(segment("DTP", "472", *ask["service_date"]))
    return found
