"""The clearinghouse's tools: eligibility (270/271), claim status (276/277), claims (837 → 999)."""

from __future__ import annotations

from typing import Any

from assay.world.services.lookup import service_for
from assay.world.tools import Tool


def x12_eligibility(
    world: Any,
    member_id: str | None = None,
    payer_id: str | None = None,
    dob: str | None = None,
    service_type: str = "30",
    raw_270: str | None = None,
    service: str | None = None,
) -> dict[str, Any]:
    """Ask the payer whether a member is covered (an X12 270); returns the 271 answer, raw and
    summarised (active, plan, copay, deductible, coinsurance, or the AAA rejection).

    Args:
        member_id: The member's id on their insurance card.
        payer_id: The payer's id, e.g. ACME01.
        dob: The member's date of birth, YYYY-MM-DD.
        service_type: The X12 service type code (30 = health benefit plan coverage).
        raw_270: A whole 270 interchange to send instead of the fields above.
        service: The clearinghouse to use, when the world has more than one.
    """
    args = {
        "member_id": member_id,
        "payer_id": payer_id,
        "dob": dob,
        "service_type": service_type,
        "raw": raw_270,
    }
    return service_for(world, "x12", service).request("eligibility", args)


def x12_claim_status(
    world: Any,
    claim_id: str | None = None,
    member_id: str | None = None,
    payer_id: str | None = None,
    raw_276: str | None = None,
    service: str | None = None,
) -> dict[str, Any]:
    """Ask the payer where a claim stands (an X12 276); returns the 277 answer, raw and
    summarised (status category and code, amount paid).

    Args:
        claim_id: The claim's id (the patient control number).
        member_id: The member's id.
        payer_id: The payer's id.
        raw_276: A whole 276 interchange to send instead of the fields above.
        service: The clearinghouse to use, when the world has more than one.
    """
    args = {"claim_id": claim_id, "member_id": member_id, "payer_id": payer_id, "raw": raw_276}
    return service_for(world, "x12", service).request("claim_status", args)


def x12_submit(world: Any, raw_837: str, service: str | None = None) -> dict[str, Any]:
    """Submit claims (an X12 837P or 837I interchange); returns the 999 acknowledgment (accepted
    or rejected per the 5010 implementation guide) and, when it is accepted, a 277CA.

    Args:
        raw_837: The whole interchange, ISA to IEA.
        service: The clearinghouse to use, when the world has more than one.
    """
    return service_for(world, "x12", service).request("submit", {"raw": raw_837})


X12_TOOLS = (
    Tool(x12_eligibility, writes=True),
    Tool(x12_claim_status, writes=True),
    Tool(x12_submit, writes=True),
)
