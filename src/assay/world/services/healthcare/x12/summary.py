"""What a request asks and an answer says, as small JSON summaries (never the whole model), and
the request bodies built when the agent gives fields instead of a raw interchange."""

from __future__ import annotations

from typing import Any

from assay.world.services.healthcare.x12.build import nm1, segment
from assay.world.services.healthcare.x12.paths import Interchange, read

AAA_REASONS = {
    "42": "unable to respond now",
    "71": "date of birth does not match",
    "72": "invalid member id",
    "75": "subscriber not found",
    "77": "subscriber found, patient not found",
    "79": "invalid participant identification: unknown payer",
}
TRACE_ORIGINATOR = "9877281234"  # TRN03 of the built 270: "1" and the provider's EIN
SUBSCRIBER, DEPENDENT = "22", "23"  # HL03 of the 270/276 subscriber and dependent levels


def _text(document: Interchange, path: str) -> str | None:
    found = read(document, path)
    return str(found) if found not in (None, "") else None


def _levels(document: Interchange) -> dict[str, list[list[str]]]:
    """The segments of each hierarchical level (HL03 code), first level of each code only."""
    levels: dict[str, list[list[str]]] = {}
    current: list[list[str]] | None = None
    for seg in document.segments:
        if seg[0] == "HL":
            code = seg[3] if len(seg) > 3 else ""
            current = levels.setdefault(code, []) if code not in levels else None
        elif current is not None and seg[0] not in ("SE", "GE", "IEA"):
            current.append(seg)
    return levels


def _first(segments: list[list[str]], name: str, qualifier: str | None = None) -> list[str]:
    for seg in segments:
        if seg[0] == name and (qualifier is None or (len(seg) > 1 and seg[1] == qualifier)):
            return seg + [""] * 10
    return [""] * 11


def _named(seg: list[str]) -> dict[str, str]:
    fields = {"entity": seg[1], "kind": seg[2], "last": seg[3], "first": seg[4]}
    fields.update(qualifier=seg[8], id=seg[9])
    return {key: value for key, value in fields.items() if value}


def _traces(segments: list[list[str]]) -> list[list[str]]:
    return [seg for seg in segments if seg[0] == "TRN" and len(seg) > 2 and seg[1] == "1"]


def _kept(fields: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if value not in (None, "", [], {})}


def from_270(document: Interchange) -> dict[str, Any]:
    levels = _levels(document)
    subscriber, dependent = levels.get(SUBSCRIBER, []), levels.get(DEPENDENT, [])
    member = _first(subscriber, "NM1", "IL")
    patient = _first(dependent, "NM1", "03")
    fields = {
        "reference": _text(document, "BHT.03"),
        "member_id": member[9],
        "last": member[3],
        "first": member[4],
        "payer_id": _text(document, "NM1[NM101=PR].09"),
        "payer_name": _text(document, "NM1[NM101=PR].03"),
        "provider": _named(_first(levels.get("21", []), "NM1")),
        "dob": _first(subscriber, "DMG")[2],
        "service_type": _text(document, "EQ.01"),
        "subscriber_traces": _traces(subscriber),
        "dependent_traces": _traces(dependent),
        "dependent": _kept({"last": patient[3], "first": patient[4]}) if dependent else None,
    }
    return _kept(fields)


def body_270(ask: dict[str, str], trace: str) -> list[str]:
    """A 270 from the tool's fields; `trace` is its subscriber TRN*1 (echoed in the 271)."""
    dob = (ask.get("dob") or "").replace("-", "")
    segments = [
        "270",
        segment("BHT", "0022", "13", trace, "20260101", "0000"),
        "HL*1**20*1",
        nm1("PR", False, "PAYER", qualifier="PI", ident=ask.get("payer_id", "")),
        "HL*2*1*21*1",
        nm1("1P", False, "GENERAL HOSPITAL", qualifier="XX", ident="1234567893"),
        "HL*3*2*22*0",
        segment("TRN", "1", trace, TRACE_ORIGINATOR),
        nm1("IL", True, ask.get("last", ""), ask.get("first", ""), "MI", ask.get("member_id", "")),
    ]
    if dob:
        segments.append(f"DMG*D8*{dob}")
    return [*segments, f"EQ*{ask.get('service_type') or '30'}"]


def from_276(document: Interchange) -> dict[str, Any]:
    levels = _levels(document)
    subscriber = levels.get(SUBSCRIBER, [])
    member = _first(subscriber, "NM1", "IL")
    trace = _first(subscriber, "TRN", "1")[2]
    payer_number = _first(subscriber, "REF", "1K")[2]
    patient_number = _first(subscriber, "REF", "EJ")[2]
    dates = _first(subscriber, "DTP", "472")
    fields = {
        "reference": _text(document, "BHT.03"),
        "trace": trace,
        "payer_claim_number": payer_number,
        "patient_control_number": patient_number,
        "claim_id": payer_number or patient_number or trace,
        "charge": _first(subscriber, "AMT", "T3")[2],
        "service_date": [dates[2], dates[3]] if dates[3] else None,
        "member_id": member[9],
        "last": member[3],
        "first": member[4],
        "payer_id": _text(document, "NM1[NM101=PR].09"),
        "receiver": _named(_first(levels.get("21", []), "NM1", "41")),
        "provider": _named(_first(levels.get("19", []), "NM1", "1P")),
    }
    return _kept(fields)


def body_276(ask: dict[str, str], trace: str) -> list[str]:
    """A 276 from the tool's fields: the claim id as its patient control number (REF*EJ)."""
    segments = [
        "276",
        segment("BHT", "0010", "13", trace, "20260101", "0000"),
        "HL*1**20*1",
        nm1("PR", False, "PAYER", qualifier="PI", ident=ask.get("payer_id", "")),
        "HL*2*1*21*1",
        nm1("41", False, "GENERAL HOSPITAL", qualifier="46", ident="GENHOSP01"),
        "HL*3*2*19*1",
        nm1("1P", False, "GENERAL HOSPITAL", qualifier="XX", ident="1234567893"),
        "HL*4*3*22*0",
        nm1("IL", True, ask.get("last", ""), ask.get("first", ""), "MI", ask.get("member_id", "")),
        segment("TRN", "1", trace),
    ]
    if ask.get("claim_id"):
        segments.append(segment("REF", "EJ", ask["claim_id"]))
    return segments


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
        "claim_id": _text(document, "REF[REF01=EJ].02") or _text(document, "REF[REF01=1K].02"),
        "status_category": _text(document, "STC.01-1"),
        "status_code": _text(document, "STC.01-2"),
        "paid": _text(document, "STC.05"),
    }


def of_999(document: Interchange) -> dict[str, Any]:
    return {
        "accepted": _text(document, "AK9.01") in ("A", "E"),
        "set_codes": [seg[2:] for seg in document.segments if seg[0] == "IK5"],
        "group": _text(document, "AK9.01"),
    }
