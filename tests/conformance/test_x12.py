"""The clearinghouse as real X12 parsers read it: 270, 276 and 837 interchanges (and broken ones)
sent to a running `assay serve`, every answer validated by pyx12 against its own 5010 maps
(277CA X214, 999 X231A1, the TA1 of its control map) or read by x12sdk's typed 5010 models
(271 X279A1, 277 X212), which hold NM1, TRN and AAA to the guide's positions and codes.

pyx12 has no usable map for the 271 or the 277 (no 5010 270/271 map; its 277 X212 map is an
unlisted draft whose GS01 must be RA), so those two are held to x12sdk."""

from __future__ import annotations

import io
import logging

import httpx
import pytest
from apikit import KEY, Server, bearer
from healthkit import claim_837, isa, write_x12_world

from assay.world.services.healthcare.x12.paths import parse

pyx12 = pytest.importorskip("pyx12")
pytest.importorskip("x12sdk")

OPERATOR = bearer(KEY)
TRACE = "TRN*1*93175-012547*9877281234*RADIOLOGY"  # 2000C trace, TRN04 included
SECOND = "TRN*1*CH-44417*9999999999"  # a clearinghouse's trace beside the provider's


def pyx12_errors(raw: str) -> list[str]:
    """What pyx12 finds wrong with `raw` against its 5010 map for the set; [] when valid."""
    import pyx12.params
    import pyx12.x12n_document

    found = io.StringIO()
    handler = logging.StreamHandler(found)
    logger = logging.getLogger("pyx12")
    logger.addHandler(handler)
    try:
        valid = pyx12.x12n_document.x12n_document(
            param=pyx12.params.params(), src_file=io.StringIO(raw), fd_997=None, fd_html=None
        )
    finally:
        logger.removeHandler(handler)
    lines = [line for line in found.getvalue().splitlines() if line.strip()]
    return [] if valid and not lines else lines or ["pyx12: not valid"]


def typed(raw: str):
    """The x12sdk 5010 model of the one transaction set in `raw` (it raises where one is off)."""
    from x12sdk.io import X12ModelReader

    with X12ModelReader(raw) as reader:
        (model,) = list(reader.models())
    return model


def segments(raw: str, name: str) -> list[list[str]]:
    return [seg for seg in parse(raw).segments if seg[0] == name]


@pytest.fixture(scope="module")
def clearinghouse(tmp_path_factory):
    """`assay serve` over the clearinghouse world; yields a function that posts to a fresh,
    started task run's x12 routes."""
    root = tmp_path_factory.mktemp("x12")
    world = write_x12_world(root / "clearing")
    server = Server(root / "records.db", root / "home", "--worlds", str(world)).start()
    client = httpx.Client(base_url=server.url, timeout=60)

    def post(route: str, body: dict) -> httpx.Response:
        made = client.post("/v1/benchmark-runs", json={"benchmark": "clearing"}, headers=OPERATOR)
        assert made.status_code == 201, made.text
        run = made.json()
        headers = bearer(run["bearer_token"])
        (task_run,) = run["task_runs"]
        assert client.post(task_run["start_url"], headers=headers).status_code < 300
        return client.post(f"{run['endpoints']['x12']}/{route}", json=body, headers=headers)

    try:
        yield post
    finally:
        client.close()
        server.stop()
    server.stop()


def interchange(body: list[str], *, ack: str = "0", control: str = "000000007") -> str:
    """ISA … IEA around a GS/ST body whose SE01 and GE01 are counted here."""
    st = body.index(next(seg for seg in body if seg.startswith("ST*")))
    count = len(body) - st + 1
    head = isa("GENHOSP", "CLEARINGHOUSE", control).replace("*0*T*:~", f"*{ack}*T*:~")
    sets = "~".join([*body, f"SE*{count}*0001", "GE*1*7"]) + "~"
    return head + sets + f"IEA*1*{control}~"


def inquiry_270(
    *, payer: str = "ACME01", dependent: bool = False, se01: int | None = None
) -> list[str]:
    body = [
        "GS*HS*GENHOSP*CLEARINGHOUSE*20260302*0900*7*X*005010X279A1",
        "ST*270*0001*005010X279A1",
        "BHT*0022*13*REQ-0302-01*20260302*0900",
        "HL*1**20*1",
        f"NM1*PR*2*ACME HEALTH PLAN*****PI*{payer}",
        "HL*2*1*21*1",
        "NM1*1P*2*GENERAL HOSPITAL*****XX*1234567893",
        f"HL*3*2*22*{int(dependent)}",
        TRACE,
        SECOND,
        "NM1*IL*1*OKAFOR*CHIDI****MI*W123456789",
        "DMG*D8*19770514",
    ]
    if dependent:
        body += [
            "HL*4*3*23*0",
            "TRN*1*DEP-0001*9877281234",
            "NM1*03*1*OKAFOR*ADA",
            "DMG*D8*20150101",
        ]
    return [*body, "EQ*30"]


def status_276(reference: str) -> list[str]:
    return [
        "GS*HR*GENHOSP*CLEARINGHOUSE*20260302*0900*7*X*005010X212",
        "ST*276*0001*005010X212",
        "BHT*0010*13*STATUS-REQ-9*20260302*0900",
        "HL*1**20*1",
        "NM1*PR*2*ACME HEALTH PLAN*****PI*ACME01",
        "HL*2*1*21*1",
        "NM1*41*2*GENERAL HOSPITAL*****46*GENHOSP01",
        "HL*3*2*19*1",
        "NM1*1P*2*GENERAL HOSPITAL*****XX*1234567893",
        "HL*4*3*22*0",
        "DMG*D8*19770514",
        "NM1*IL*1*OKAFOR*CHIDI****MI*W123456789",
        "TRN*1*TRACE-276-0001",
        reference,
        "AMT*T3*125",
        "DTP*472*RD8*20260301-20260301",
    ]


def test_the_271_returns_each_trn_of_the_270_and_its_bht03(clearinghouse):
    answer = clearinghouse("eligibility", {"raw_270": interchange(inquiry_270())}).json()
    model = typed(answer["raw"])
    subscriber = model.loop_2000a[0].loop_2000b[0].loop_2000c[0]
    returned = [
        (
            t.trace_type_code,
            t.reference_identification_1,
            t.originating_company_identifier,
            t.reference_identification_2,
        )
        for t in subscriber.trn_segment
    ]
    assert returned == [
        ("2", "93175-012547", "9877281234", "RADIOLOGY"),
        ("2", "CH-44417", "9999999999", None),
    ]
    assert segments(answer["raw"], "BHT")[0][3] == "REQ-0302-01"
    assert answer["parsed"]["copay"] == "25"


def test_a_dependent_inquiry_gets_its_2000d_trn_back(clearinghouse):
    raw = interchange(inquiry_270(dependent=True))
    answer = clearinghouse("eligibility", {"raw_270": raw}).json()
    assert "raw" in answer, answer
    document = parse(answer["raw"]).segments
    dependent = document.index(["HL", "4", "3", "23", "0"])
    assert document[dependent + 1] == ["TRN", "2", "DEP-0001", "9877281234"]
    assert document[dependent + 2] == ["NM1", "03", "1", "OKAFOR", "ADA"]


def test_an_unknown_payer_is_aaa_79_in_the_payer_loop(clearinghouse):
    answer = clearinghouse(
        "eligibility", {"raw_270": interchange(inquiry_270(payer="NOPE01"))}
    ).json()
    source = typed(answer["raw"]).loop_2000a[0]
    (aaa,) = source.loop_2100a.aaa_segment
    assert (aaa.reject_reason_code, aaa.follow_up_action_code) == ("79", "C")
    assert source.loop_2000b == []  # nothing below the information source that rejected it
    assert answer["parsed"]["rejected"] == "79"


def test_a_276_is_matched_by_the_patient_control_number(clearinghouse):
    raw = interchange(status_276("REF*EJ*PCN0042"))
    answer = clearinghouse("claim-status", {"raw_276": raw}).json()
    claim = typed(answer["raw"]).loop_2000a[0].loop_2000b[0].loop_2000c[0].loop_2000d[0]
    assert claim.loop_2200d[0].trn_segment.reference_identification_1 == "TRACE-276-0001"
    assert answer["parsed"]["status_category"] == "F2"
    assert ["REF", "EJ", "PCN0042"] in segments(answer["raw"], "REF")
    assert segments(answer["raw"], "BHT")[0][3] == "STATUS-REQ-9"
    by_payer_number = clearinghouse(
        "claim-status", {"raw_276": interchange(status_276("REF*1K*PCN0043"))}
    )
    assert by_payer_number.json()["parsed"]["status_category"] == "F1"


def test_every_nm1_of_a_277_is_nm101_to_nm109(clearinghouse):
    ask = {"claim_id": "PCN0042", "member_id": "W123456789", "payer_id": "ACME01"}
    answer = clearinghouse("claim-status", ask).json()
    subscriber = typed(answer["raw"]).loop_2000a[0].loop_2000b[0].loop_2000c[0].loop_2000d[0]
    name = subscriber.loop_2100d.nm1_segment
    assert (
        name.name_last_or_organization_name,
        name.identification_code_qualifier,
        name.identification_code,
    ) == ("OKAFOR", "MI", "W123456789")
    for nm1 in segments(answer["raw"], "NM1"):
        assert len(nm1) == 10 and nm1[8] in ("PI", "46", "XX", "MI"), nm1


def test_the_999_and_277ca_of_an_837_pass_their_maps(clearinghouse):
    answer = clearinghouse("claims", {"raw_837": claim_837()}).json()
    assert answer["accepted"] is True
    assert pyx12_errors(answer["raw"]) == []
    assert pyx12_errors(answer["raw_277ca"]) == []
    levels = [seg[3] for seg in segments(answer["raw_277ca"], "HL")]
    assert levels == ["20", "21", "19", "PT"]
    patient = segments(answer["raw_277ca"], "NM1")[-1]
    assert patient == ["NM1", "QC", "1", "OKAFOR", "CHIDI", "", "", "", "MI", "W123456789"]


def test_a_rejected_837_gets_a_999_that_passes_its_map_and_no_277ca(clearinghouse):
    answer = clearinghouse("claims", {"raw_837": claim_837(release=False)}).json()
    assert pyx12_errors(answer["raw"]) == []
    assert ["IK5", "R", "5"] in segments(answer["raw"], "IK5")  # 5: one or more segments in error
    assert segments(answer["raw"], "AK9") == [["AK9", "R", "1", "1", "0"]]
    assert answer["raw_277ca"] is None


@pytest.mark.parametrize(
    ("broken", "ik5", "ak9"),
    [
        (("SE*23*0001", "SE*22*0001"), ["IK5", "R", "4"], ["AK9", "R", "1", "1", "0"]),
        (("SE*23*0001", "SE*23*0002"), ["IK5", "R", "3"], ["AK9", "R", "1", "1", "0"]),
        (("GE*1*102", "GE*1*103"), ["IK5", "A"], ["AK9", "R", "1", "1", "0", "4"]),
        (("GE*1*102", "GE*2*102"), ["IK5", "A"], ["AK9", "R", "2", "1", "0", "5"]),
    ],
)
def test_broken_837_envelopes_get_the_999_guides_codes(clearinghouse, broken, ik5, ak9):
    raw = claim_837().replace(*broken)
    answer = clearinghouse("claims", {"raw_837": raw}).json()
    assert pyx12_errors(answer["raw"]) == []
    assert segments(answer["raw"], "IK5") == [ik5]
    assert segments(answer["raw"], "AK9") == [ak9]


def test_a_270_with_a_wrong_se01_gets_a_999_ik5_4(clearinghouse):
    whole = interchange(inquiry_270())
    assert "SE*13*0001" in whole
    raw = whole.replace("SE*13*0001", "SE*12*0001")
    answer = clearinghouse("eligibility", {"raw_270": raw}).json()
    assert answer["transaction_set"] == "999"
    assert pyx12_errors(answer["raw"]) == []
    assert segments(answer["raw"], "AK2") == [["AK2", "270", "0001", "005010X279A1"]]
    assert segments(answer["raw"], "IK5") == [["IK5", "R", "4"]]
    assert segments(answer["raw"], "AK9") == [["AK9", "R", "1", "1", "0"]]


def ta1_of(raw: str) -> list[str]:
    """The one TA1 of a TA1-only interchange, its elements checked by pyx12's control map."""
    import pyx12.map_if
    import pyx12.params
    import pyx12.segment

    logger = logging.getLogger("pyx12")
    found = io.StringIO()
    handler = logging.StreamHandler(found)
    logger.addHandler(handler)
    try:
        read = pyx12.x12n_document.x12n_document(
            param=pyx12.params.params(), src_file=io.StringIO(raw), fd_997=None, fd_html=None
        )
    finally:
        logger.removeHandler(handler)
    # pyx12's control map wants a functional group; X12.5 lets an interchange carry TA1s alone
    others = [
        line for line in found.getvalue().splitlines() if "GS_LOOP" not in line and line.strip()
    ]
    assert read and others == []
    (ta1,) = segments(raw, "TA1")
    control = pyx12.map_if.load_map_file("x12.control.00501.xml", pyx12.params.params())
    node = control.getnodebypath("/ISA_LOOP/TA1")
    ok, errors = node.is_valid_errors(pyx12.segment.Segment("*".join(ta1), "~", "*", ":"))
    assert ok, errors
    assert segments(raw, "IEA") == [["IEA", "0", raw[90:99]]]
    return ta1


def test_isa14_1_gets_a_ta1_beside_the_answer(clearinghouse):
    answer = clearinghouse("eligibility", {"raw_270": interchange(inquiry_270(), ack="1")}).json()
    assert ta1_of(answer["raw_ta1"]) == ["TA1", "000000007", "260302", "0900", "A", "000"]
    assert answer["transaction_set"] == "271"
    claims = clearinghouse(
        "claims", {"raw_837": claim_837().replace("*0*T*:~", "*1*T*:~", 1)}
    ).json()
    assert ta1_of(claims["raw_ta1"])[4:] == ["A", "000"]


def test_a_broken_interchange_envelope_is_rejected_by_a_ta1(clearinghouse):
    raw = claim_837().replace("IEA*1*000000102", "IEA*1*000000103")
    answer = clearinghouse("claims", {"raw_837": raw}).json()
    assert answer["transaction_set"] == "TA1" and answer["accepted"] is False
    assert ta1_of(answer["raw"]) == ["TA1", "000000102", "260302", "0900", "R", "001"]
    assert answer["raw_277ca"] is None
    bad_version = interchange(inquiry_270()).replace("*00501*", "*00401*", 1)
    refused = clearinghouse("eligibility", {"raw_270": bad_version}).json()
    assert ta1_of(refused["raw"])[4:] == ["R", "017"]


def test_a_278_is_refused_by_the_eligibility_route(clearinghouse):
    body = inquiry_270()
    body[0] = "GS*HI*GENHOSP*CLEARINGHOUSE*20260302*0900*7*X*005010X217"
    body[1] = "ST*278*0001*005010X217"
    refused = clearinghouse("eligibility", {"raw_270": interchange(body)})
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == "expected a 270 transaction set, got 278"


@pytest.mark.parametrize(
    ("set_code", "functional", "version"),
    [("270", "HS", "005010X279A1"), ("276", "HR", "005010X212")],
)
def test_the_requests_built_from_fields_are_read_by_the_typed_models(set_code, functional, version):
    from datetime import datetime

    from assay.world.services.healthcare.x12 import build, summary

    ask = {"member_id": "W123456789", "payer_id": "ACME01", "last": "Okafor", "first": "Chidi"}
    body = {"270": summary.body_270, "276": summary.body_276}[set_code](
        {**ask, "claim_id": "PCN0042"}, "T-1"
    )
    envelope = build.Envelope("GENHOSP", "CLEARINGHOUSE", 1, datetime(2026, 3, 2, 9))
    model = typed(build.interchange(envelope, functional, version, body))
    assert model.header.st_segment.transaction_set_identifier_code == set_code


@pytest.mark.parametrize(
    ("broken", "ak905"),
    [(("005010X222A1", "004010X098A1"), "2"), (("GS*HC", "GS*HI"), "1")],
)
def test_an_837_group_without_a_guide_gets_a_999_that_says_so(clearinghouse, broken, ak905):
    answer = clearinghouse("claims", {"raw_837": claim_837().replace(*broken)}).json()
    assert pyx12_errors(answer["raw"]) == []
    assert segments(answer["raw"], "AK9") == [["AK9", "R", "1", "1", "0", ak905]]
    assert answer["accepted"] is False and answer["raw_277ca"] is None
