"""The 277CA (005010X214) for an 837 the 999 accepted: information source (2000A/2100A with the
2200A receipt trace), information receiver (2000B, the 837's submitter, 2200B with BHT03), each
billing provider (2000C) and each claim's patient (2000D) with the claim's STC (2200D)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal, InvalidOperation

from assay.world.services.healthcare.x12.build import money, nm1, segment
from assay.world.services.healthcare.x12.paths import Interchange

ACCEPTED = "A1:20"  # received, accepted for processing


@dataclass
class Claim:
    claim_id: str
    charge: str
    patient: list[str]  # the NM1 (2010BA subscriber or 2010CA patient) it is billed for
    dates: list[str] = field(default_factory=list)


@dataclass
class Provider:
    name: list[str]  # the 2010AA NM1*85
    claims: list[Claim] = field(default_factory=list)


@dataclass
class Batch:
    reference: str  # BHT03
    submitter: list[str]  # the 1000A NM1*41
    providers: list[Provider]

    @property
    def claims(self) -> list[Claim]:
        return [claim for provider in self.providers for claim in provider.claims]


def read_batch(document: Interchange) -> Batch:
    """The submitter, billing providers, claims and patients of an 837, in order."""
    batch = Batch("0", [], [])
    person: list[str] = []
    for seg in document.segments:
        name = seg[0]
        if name == "BHT" and len(seg) > 3:
            batch.reference = seg[3]
        elif name == "NM1" and len(seg) > 1:
            if seg[1] == "41":
                batch.submitter = seg
            elif seg[1] == "85":
                batch.providers.append(Provider(seg))
            elif seg[1] in ("IL", "QC"):
                person = seg
        elif name == "CLM" and batch.providers:
            charge = seg[2] if len(seg) > 2 else "0"
            batch.providers[-1].claims.append(Claim(seg[1] if len(seg) > 1 else "", charge, person))
        elif name == "DTP" and len(seg) > 3 and seg[1] == "472" and batch.claims:
            batch.claims[-1].dates += seg[3].split("-")
    return batch


def acceptance_body(batch: Batch, clearinghouse: str, now: datetime, trace: str) -> list[str]:
    """The 277CA's segments after ST: every claim accepted for processing."""
    day = f"{now:%Y%m%d}"
    total = money(str(_sum(claim.charge for claim in batch.claims)))
    count = str(len(batch.claims))
    segments = [
        "277",
        segment("BHT", "0085", "08", trace, day, f"{now:%H%M}", "TH"),
        "HL*1**20*1",
        nm1("AY", False, clearinghouse, qualifier="46", ident=clearinghouse),
        segment("TRN", "1", trace),
        segment("DTP", "050", "D8", day),
        segment("DTP", "009", "D8", day),
        "HL*2*1*21*1",
        _named("41", batch.submitter, "46"),
        segment("TRN", "2", batch.reference),
        segment("STC", "A1:19", day, "WQ", total),
        segment("QTY", "90", count),
        segment("AMT", "YU", total),
    ]
    level = 2
    for provider in batch.providers:
        level += 1
        provider_level = level
        subtotal = money(str(_sum(claim.charge for claim in provider.claims)))
        segments += [
            f"HL*{provider_level}*2*19*1",
            _named("85", provider.name, "XX"),
            segment("TRN", "1", "0"),
            segment("STC", "A1:19", "", "WQ", subtotal),  # X214 2200C: STC02 is not used
            segment("QTY", "QA", str(len(provider.claims))),
            segment("AMT", "YU", subtotal),
        ]
        for claim in provider.claims:
            level += 1
            segments += [f"HL*{level}*{provider_level}*PT", *_claim(claim, day)]
    return segments


def _claim(claim: Claim, day: str) -> list[str]:
    dates = sorted(claim.dates) or [day]
    span = ("D8", dates[0]) if dates[0] == dates[-1] else ("RD8", f"{dates[0]}-{dates[-1]}")
    return [
        _named("QC", claim.patient, "MI", person=True),
        segment("TRN", "2", claim.claim_id),
        segment("STC", ACCEPTED, day, "WQ", money(claim.charge)),
        segment("DTP", "472", *span),
    ]


def _named(entity: str, seg: list[str], qualifier: str, person: bool = False) -> str:
    """An NM1 for `entity` from the 837's NM1 `seg` (its names, qualifier and id)."""

    def at(index: int) -> str:
        return seg[index] if len(seg) > index else ""

    return nm1(entity, person or at(2) == "1", at(3), at(4), at(8) or qualifier, at(9) or "UNKNOWN")


def _sum(amounts) -> Decimal:
    total = Decimal(0)
    for amount in amounts:
        try:
            total += Decimal(amount or "0")
        except InvalidOperation:
            continue
    return total
