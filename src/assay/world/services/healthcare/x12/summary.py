"""What a request asks and an answer says, as small JSON summaries (never the whole model), and
the request bodies built when the agent gives fields instead of a raw interchange."""

from __future__ import annotations

from typing import Any

from assay.world.services.healthcare.x12.paths import Interchange, read
from assay.world.services.healthcare.x12.validate import Validation

AAA_REASONS = {
    "42": "unable to respond now: unknown payer",
    "71": "date of birth does not match",
    "72": "invalid member id",
    "75": "subscriber not found",
}


def _text(document: Interchange, path: str) -> str | None:
    found = read(document, path)
    return str(found) if found not in (None, "") else None


def from_270(document: Interchange) -> dict[str, str]:
    fields = {
        "member_id": _text(document, "NM1[NM101=IL].09"),
        "last": _text(document, "NM1[NM101=IL].03"),
        "first": _text(document, "NM1[NM101=IL].04"),
        "payer_id": _text(document, "NM1[NM101=PR].09"),
        "dob": _text(document, "DMG.02"),
        "service_type": _text(document, "EQ.01"),
    }
    return {key: value for key, value in fields.items() if value is not None}


def body_270(ask: dict[str, str]) -> list[str]:
    dob = (ask.get("dob") or "").replace("-", "")
    segments = [
        "270",
        "BHT*0022*13*ELIG*20260101*0000",
        "HL*1**20*1",
        f"NM1*PR*2*PAYER*****PI*{ask.get('payer_id', '')}",
        "HL*2*1*21*1",
        "NM1*1P*2*GENERAL HOSPITAL*****XX*1234567893",
        "HL*3*2*22*0",
        f"NM1*IL*1*****MI*{ask.get('member_id', '')}",
    ]
    if dob:
        segments.append(f"DMG*D8*{dob}")
    return [*segments, f"EQ*{ask.get('service_type') or '30'}"]


def from_276(document: Interchange) -> dict[str, str]:
    fields = {
        "claim_id": _text(document, "TRN.02") or _text(document, "REF[REF01=1K].02"),
        "member_id": _text(document, "NM1[NM101=IL].09"),
        "payer_id": _text(document, "NM1[NM101=PR].09"),
    }
    return {key: value for key, value in fields.items() if value is not None}


def body_276(ask: dict[str, str]) -> list[str]:
    return [
        "276",
        "BHT*0010*13*STATUS*20260101*0000",
        "HL*1**20*1",
        f"NM1*PR*2*PAYER*****PI*{ask.get('payer_id', '')}",
        "HL*2*1*21*1",
        "NM1*41*2*GENERAL HOSPITAL*****46*GENHOSP01",
        "HL*3*2*19*1",
        "NM1*1P*2*GENERAL HOSPITAL*****XX*1234567893",
        "HL*4*3*22*0",
        f"NM1*IL*1*****MI*{ask.get('member_id', '')}",
        f"TRN*1*{ask.get('claim_id', '')}",
    ]


def of_271(document: Interchange) -> dict[str, Any]:
    rejected = _text(document, "AAA.03")
    if rejected is not None:
        reason = AAA_REASONS.get(rejected, "rejected")
        return {"active": False, "rejected": rejected, "reason": reason}
    return {
        "active": _text(document, "EB[1].01") == "1",
        "member_id": _text(document, "NM1[NM101=IL].09"),
        "plan": _text(document, "EB[1].05"),
        "copay": _text(document, "EB[EB01=B].07"),
        "deductible": _text(document, "EB[EB01=C].07"),
        "coinsurance": _text(document, "EB[EB01=A].08"),
    }


def of_277(document: Interchange) -> dict[str, Any]:
    return {
        "claim_id": _text(document, "REF[REF01=1K].02"),
        "status_category": _text(document, "STC.01-1"),
        "status_code": _text(document, "STC.01-2"),
        "paid": _text(document, "STC.05"),
    }


def body_999(document: Interchange, checked: Validation) -> list[str]:
    """AK1/AK2, pyx12's IK3/IK4 error segments, IK5 and AK9: accepted (A) or rejected (R)."""
    group = _text(document, "GS.06") or "1"
    version = _text(document, "GS.08") or "005010X222A1"
    st = _text(document, "ST.02") or "0001"
    errors = []
    if checked.ack:
        for part in checked.ack.split("~"):
            part = part.strip()
            if part.startswith(("IK3*", "IK4*", "CTX*")):
                errors.append(part)
    code = "A" if checked.valid else "R"
    ik5 = "IK5*A" if checked.valid else "IK5*R*5"
    accepted = "1" if checked.valid else "0"
    return [
        "999",
        f"AK1*HC*{group}*{version}",
        f"AK2*837*{st}*{version}",
        *errors,
        ik5,
        f"AK9*{code}*1*1*{accepted}",
    ]
