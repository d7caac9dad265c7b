"""The 271 (005010X279A1) answering a 270: information source (2000A/2100A), receiver
(2000B/2100B), subscriber (2000C/2100C), a dependent (2000D/2100D) when one was asked about,
and either an AAA rejection at the loop that failed or the EB benefits (2110C)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from assay.world.services.healthcare.x12.build import money, nm1, segment

PROVIDER = {
    "entity": "1P",
    "kind": "2",
    "last": "GENERAL HOSPITAL",
    "qualifier": "XX",
    "id": "1234567893",
}


@dataclass(frozen=True)
class Rejection:
    """An AAA: the loop it belongs to (2100A payer, 2100C subscriber, 2100D dependent), its
    valid-request indicator (AAA01) and reject reason (AAA03)."""

    loop: str
    valid: str
    reason: str


def eligibility_body(
    ask: dict[str, Any],
    payer: dict[str, str] | None,
    member: dict[str, str] | None,
    rejection: Rejection | None,
    now: datetime,
) -> list[str]:
    """The 271's segments after ST, the BHT03 of the 270 returned as the guide asks."""
    payer_name = payer["name"] if payer else ask.get("payer_name") or "UNKNOWN PAYER"
    segments = [
        "271",
        segment(
            "BHT",
            "0022",
            "11",
            ask.get("reference") or "ELIGIBILITY",
            f"{now:%Y%m%d}",
            f"{now:%H%M}",
        ),
        "HL*1**20*1",
        nm1("PR", False, payer_name, qualifier="PI", ident=ask.get("payer_id", "")),
    ]
    if (
        rejection is not None and rejection.loop == "2100A"
    ):  # no receiver or subscriber loops follow
        return [*segments, _aaa(rejection)]
    found = member is not None and rejection is None
    dependent = ask.get("dependent") if found else None
    segments += [
        "HL*2*1*21*1",
        _receiver(ask.get("provider") or PROVIDER),
        f"HL*3*2*22*{1 if dependent else 0}",
        *_echoed(ask.get("subscriber_traces", [])),
        *_subscriber(ask, member, rejection, now),
    ]
    if dependent:
        segments += [
            "HL*4*3*23*0",
            *_echoed(ask.get("dependent_traces", [])),
            nm1("03", True, dependent.get("last", ""), dependent.get("first", "")),
            _aaa(
                Rejection("2100D", "Y", "77")
            ),  # the world knows subscribers only: patient not found
        ]
    return segments


def _receiver(provider: dict[str, str]) -> str:
    """The 270's information receiver (2100B), returned as it was named."""
    return nm1(
        provider.get("entity") or "1P",
        provider.get("kind") == "1",
        provider.get("last", ""),
        provider.get("first", ""),
        provider.get("qualifier", ""),
        provider.get("id", ""),
    )


def _echoed(traces: list[list[str]]) -> list[str]:
    """Each TRN*1 of the 270 comes back as TRN*2 with the same trace (X279A1 2000C/2000D TRN)."""
    return [segment("TRN", "2", *trace[2:]) for trace in traces]


def _aaa(rejection: Rejection) -> str:
    return segment("AAA", rejection.valid, "", rejection.reason, "C")


def _subscriber(
    ask: dict[str, Any],
    member: dict[str, str] | None,
    rejection: Rejection | None,
    now: datetime,
) -> list[str]:
    if member is None or (rejection is not None and rejection.loop == "2100C"):
        name = nm1(
            "IL", True, ask.get("last", ""), ask.get("first", ""), "MI", ask.get("member_id", "")
        )
        return [name, _aaa(rejection or Rejection("2100C", "Y", "75"))]
    segments = [
        nm1("IL", True, member["last"], member["first"], "MI", member["member_id"]),
        f"DMG*D8*{member['dob'].replace('-', '')}",
        f"DTP*291*D8*{now:%Y%m%d}",
    ]
    if ask.get("dependent"):
        return segments
    return segments + _benefits(member, ask.get("service_type") or "30")


def _benefits(member: dict[str, str], service_type: str) -> list[str]:
    plan = member["plan"].upper()
    if member["active"] != "true":
        return [segment("EB", "6", "IND", service_type, "", plan)]
    found = [segment("EB", "1", "IND", service_type, "", plan)]
    if member.get("copay"):
        found.append(segment("EB", "B", "IND", service_type, "", "", "27", money(member["copay"])))
    if member.get("deductible"):
        found.append(
            segment("EB", "C", "IND", service_type, "", "", "23", money(member["deductible"]))
        )
    if member.get("coinsurance"):
        share = money(str(Decimal(member["coinsurance"]) / 100))
        found.append(segment("EB", "A", "IND", service_type, "", "", "", "", share))
    return found
