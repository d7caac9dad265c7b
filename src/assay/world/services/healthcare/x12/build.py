"""X12 5010 interchanges the clearinghouse answers with, from templates: control numbers from the
service's counters, dates from the world's clock."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal


@dataclass(frozen=True)
class Envelope:
    sender: str
    receiver: str
    control: int
    now: datetime


def interchange(envelope: Envelope, functional: str, version: str, body: list[str]) -> str:
    """ISA/GS/ST … SE/GE/IEA around `body` (the segments between ST and SE)."""
    date, time = envelope.now.strftime("%y%m%d"), envelope.now.strftime("%H%M")
    number = f"{envelope.control:09d}"
    isa = (
        f"ISA*00*{'':10}*00*{'':10}*ZZ*{envelope.sender:<15}*ZZ*{envelope.receiver:<15}"
        f"*{date}*{time}*^*00501*{number}*0*T*:"
    )
    st_control = f"{envelope.control:04d}"
    set_code = body[0]
    body = body[1:]
    segments = [
        isa,
        f"GS*{functional}*{envelope.sender}*{envelope.receiver}*{envelope.now:%Y%m%d}*{time}"
        f"*{envelope.control}*X*{version}",
        f"ST*{set_code}*{st_control}*{version}",
        *body,
        f"SE*{len(body) + 2}*{st_control}",
        f"GE*1*{envelope.control}",
        f"IEA*1*{number}",
    ]
    return "~".join(segments) + "~"


def money(value: str) -> str:
    """Dollars as X12 writes them: `25`, `1500`, `12.5`."""
    amount = Decimal(value or "0").normalize()
    return format(amount, "f")


def eligibility_body(
    request: dict[str, str],
    payer: dict[str, str] | None,
    member: dict[str, str] | None,
    problem: str | None,
    now: datetime,
    trace: str,
) -> list[str]:
    """The 271's segments: payer, provider, subscriber, then AAA (a problem) or EB benefits."""
    service_type = request.get("service_type") or "30"
    payer_name = payer["name"] if payer else "UNKNOWN PAYER"
    segments = [
        "271",
        f"BHT*0022*11*{trace}*{now:%Y%m%d}*{now:%H%M}",
        "HL*1**20*1",
        f"NM1*PR*2*{payer_name.upper()}*****PI*{request.get('payer_id', '')}",
        "HL*2*1*21*1",
        f"NM1*1P*2*{request.get('provider', 'GENERAL HOSPITAL')}*****XX*1234567893",
        "HL*3*2*22*0",
        f"TRN*2*{trace}*9123456789",
    ]
    if member is None or problem is not None:
        last, first = (request.get("last") or "").upper(), (request.get("first") or "").upper()
        segments.append(f"NM1*IL*1*{last}*{first}****MI*{request.get('member_id', '')}")
        segments.append(f"AAA*Y**{problem or '75'}*C")
        return segments
    segments += [
        f"NM1*IL*1*{member['last'].upper()}*{member['first'].upper()}****MI*{member['member_id']}",
        f"DMG*D8*{member['dob'].replace('-', '')}",
        f"DTP*291*D8*{now:%Y%m%d}",
    ]
    if member["active"] != "true":
        return [*segments, f"EB*6*IND*{service_type}**{member['plan'].upper()}"]
    segments.append(f"EB*1*IND*{service_type}**{member['plan'].upper()}")
    if member.get("copay"):
        segments.append(f"EB*B*IND*{service_type}***27*{money(member['copay'])}")
    if member.get("deductible"):
        segments.append(f"EB*C*IND*{service_type}***23*{money(member['deductible'])}")
    if member.get("coinsurance"):
        share = Decimal(member["coinsurance"]) / 100
        segments.append(f"EB*A*IND*{service_type}*****{money(str(share))}")
    return segments


def status_body(
    request: dict[str, str], claim: dict[str, str] | None, now: datetime, trace: str
) -> list[str]:
    """The 277's segments: the claim's STC from claims.csv, or A4:35 (not found)."""
    if claim is None:
        stc = f"STC*A4:35*{now:%Y%m%d}"
    else:
        paid = money(claim.get("paid") or "0")
        charge = money(claim.get("charge") or claim.get("paid") or "0")  # STC04 charge, STC05 paid
        status = f"{claim['status_category']}:{claim['status_code']}"
        stc = f"STC*{status}*{now:%Y%m%d}**{charge}*{paid}"
    return [
        "277",
        f"BHT*0010*08*{trace}*{now:%Y%m%d}*{now:%H%M}*DG",
        "HL*1**20*1",
        f"NM1*PR*2*PAYER*****PI*{request.get('payer_id', '')}",
        "HL*2*1*21*1",
        "NM1*41*2*GENERAL HOSPITAL*****46*GENHOSP01",
        "HL*3*2*19*1",
        "NM1*1P*2*GENERAL HOSPITAL*****XX*1234567893",
        "HL*4*3*22*0",
        f"NM1*IL*1*****MI*{request.get('member_id', '')}",
        f"TRN*2*{request.get('claim_id', '')}",
        stc,
        f"REF*1K*{request.get('claim_id', '')}",
    ]


def acceptance_body(claims: list[tuple[str, str]], accepted: bool, now: datetime) -> list[str]:
    """A 277CA: each claim (id, charge) accepted (A1:20) or rejected (A3:21) into adjudication."""
    segments = [
        "277",
        f"BHT*0085*08*277CA*{now:%Y%m%d}*{now:%H%M}*TH",
        "HL*1**20*1",
        "NM1*AY*2*CLEARINGHOUSE*****46*CLEARINGHOUSE",
    ]
    status = "A1:20" if accepted else "A3:21"
    for claim_id, charge in claims:
        segments += [f"TRN*2*{claim_id}", f"STC*{status}*{now:%Y%m%d}*WQ*{charge}"]
    return segments
