"""HL7 v2 over MLLP against a real `assay serve --mllp`: python-hl7's MLLP clients send real
messages, and every ACK that comes back is read by python-hl7 and passes hl7apy's strict
validation, with the codes, error conditions and acknowledgment modes of HL7 v2.5.1 §2.9."""

from __future__ import annotations

import asyncio
import json
import textwrap
import urllib.request

import hl7
import pytest
from apikit import KEY, Server
from hl7.client import MLLPClient
from hl7.mllp import open_hl7_connection
from hl7apy.consts import VALIDATION_LEVEL
from hl7apy.parser import parse_message

WORLD = """
name = "interface"
version = "1"
clock = "2026-03-02T09:00:00Z"

[database]
schema = "schema.sql"

[services.hl7]
kind = "hl7"
version = "2.5.1"
validate = "strict"

[roles.clerk]
tools = ["hl7_send", "hl7_inbox"]
"""
TASK = """
title = "Send the feeds"
role = "clerk"

[customer]
request = "Send the admission, the result, the booking and the order."

[[checks]]
name = "An admission was sent"
assert = "hl7-structural"
correlate_by = { message_type = "ADT^A01" }
fields = [{ path = "PID.3.1", expected = "MRN0042" }]
"""
EVN = "EVN|A01|20260302090000"
PID = "PID|1||MRN0042^^^GEN^MR||Okafor^Chidi^E||19770514|M"
SCH = (
    "SCH|APT1|APT1||||ROUTINE^Routine|||||^^^20260303090000|||||Rivera^Ana||||Rivera^Ana|||||BOOKED"
)
BODIES = {
    "ADT^A01^ADT_A01": [EVN, PID, "PV1|1|I|W1^12^A"],
    "ORU^R01^ORU_R01": [
        PID,
        "OBR|1||R1|80053^CMP^C4",
        "OBX|1|NM|2345-7^Glucose^LN||182|mg/dL|70-99|H|||F",
    ],
    "SIU^S12^SIU_S12": [SCH, PID, "RGS|1", "AIS|1||99213^Office visit^C4|20260303090000"],
    "ORM^O01^ORM_O01": [PID, "ORC|NW|ORD1"],
}


def message(kind: str, control: str, *, ack: str = "", version: str = "2.5.1", body=None) -> str:
    """A message from LAB at GEN to the EHR; `ack` is MSH-15 and MSH-16, e.g. `AL|NE`."""
    header = f"MSH|^~\\&|LAB|GEN|EHR|HOSP|20260302090000||{kind}|{control}|P|{version}"
    if ack:
        header += f"|||{ack}"
    return "\r".join(
        [header, *(BODIES.get(kind, BODIES["ADT^A01^ADT_A01"]) if body is None else body)]
    )


def checked(ack: str, sent: str) -> hl7.Message:
    """The ACK read by python-hl7 and validated strictly by hl7apy, its header answering `sent`."""
    strict = parse_message(ack, validation_level=VALIDATION_LEVEL.STRICT)
    strict.validate()
    parsed, original = hl7.parse(ack), hl7.parse(sent)
    msh, theirs = parsed.segment("MSH"), original.segment("MSH")
    assert [str(msh(n)) for n in (3, 4, 5, 6)] == [str(theirs(n)) for n in (5, 6, 3, 4)]
    assert str(msh(9)) == f"ACK^{theirs(9)(1)(2)}^ACK"
    assert str(msh(12)) == str(theirs(12)) and str(msh(10))
    assert str(parsed.segment("MSA")(2)) == (str(theirs(10)) or '""')
    return parsed


def codes(parsed: hl7.Message) -> list[tuple[str, str, str, str]]:
    """(MSA-1, ERR-2, ERR-3.1, ERR-4) for each ERR segment, or one row with MSA-1 alone."""
    msa = str(parsed.segment("MSA")(1))
    rows = [
        (msa, str(seg(2)), str(seg(3)(1)(1)), str(seg(4))) for seg in parsed if str(seg(0)) == "ERR"
    ]
    return rows or [(msa, "", "", "")]


def request(url: str, body: dict | None, token: str) -> dict:
    call = urllib.request.Request(
        url,
        data=json.dumps(body or {}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(call, timeout=30) as answer:
        return json.loads(answer.read())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`assay serve --mllp 0` over a strict HL7 world, as a real process: its base URL."""
    tmp = tmp_path_factory.mktemp("hl7")
    root = tmp / "interface"
    (root / "tasks").mkdir(parents=True)
    (root / "world.toml").write_text(textwrap.dedent(WORLD))
    (root / "schema.sql").write_text("CREATE TABLE notes (id INTEGER PRIMARY KEY);\n")
    (root / "tasks" / "feeds.toml").write_text(textwrap.dedent(TASK))
    served = Server(tmp / "api.db", tmp / "home", "--worlds", str(root), "--mllp", "0").start()
    try:
        yield served.url
    finally:
        served.stop()


def open_run(base: str, start: bool = True) -> tuple[str, int]:
    """A new benchmark run (its task run started): the MLLP host and port."""
    run = request(f"{base}/v1/benchmark-runs", {"benchmark": "interface"}, KEY)
    if start:
        request(f"{base}{run['task_runs'][0]['start_url']}", None, run["bearer_token"])
    host, port = run["endpoints"]["hl7_mllp"].removeprefix("mllp://").split(":")
    return host, int(port)


def send_original(where: tuple[str, int], *messages: str) -> list[str]:
    """Each message over python-hl7's blocking MLLP client: its one ACK, unframed."""
    with MLLPClient(*where) as client:
        return [client.send_message(text).decode()[1:-2] for text in messages]


def send_enhanced(where: tuple[str, int], text: str, expected: int) -> list[str]:
    """One message over python-hl7's asyncio MLLP client: every ACK that comes within a second."""

    async def exchange() -> list[str]:
        reader, writer = await open_hl7_connection(*where)
        try:
            writer.writemessage(hl7.parse(text))
            await writer.drain()
            acks = []
            for _ in range(expected + 1):
                try:
                    acks.append(str(await asyncio.wait_for(reader.readmessage(), 1.0)))
                except TimeoutError:
                    break
            return acks
        finally:
            writer.close()

    return asyncio.run(exchange())


def test_each_kind_of_message_is_accepted_with_a_strictly_valid_ack(server):
    where = open_run(server)
    sent = [message(kind, f"C{index}") for index, kind in enumerate(BODIES)]
    acks = send_original(where, *sent)
    for ack, text in zip(acks, sent, strict=True):
        assert codes(checked(ack, text)) == [("AA", "", "", "")]
    assert len({hl7.parse(ack).segment("MSH")(10)[0] for ack in acks}) == len(acks)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (message("MDM^T02", "M1"), ("AR", "MSH^1^9^1^1", "200", "E")),
        (message("ADT^A99^ADT_A01", "M2"), ("AR", "MSH^1^9^1^2", "201", "E")),
        (
            message("ADT^A01^ADT_A01", "M3").replace("|M3|P|", "|M3|X|"),
            ("AR", "MSH^1^11", "202", "E"),
        ),
        (message("ADT^A01^ADT_A01", "M4", version="2.1"), ("AR", "MSH^1^12", "203", "E")),
        (message("ADT^A01^ADT_A01", ""), ("AE", "MSH^1^10", "101", "E")),
        (message("ADT^A01^ADT_A01", "M6", body=[PID, "PV1|1|I"]), ("AE", "EVN", "100", "E")),
        (
            message("ADT^A01^ADT_A01", "M7", body=[EVN, "PID|1||||Okafor", "PV1|1|I"]),
            ("AE", "PID^1^3", "101", "E"),
        ),
        (
            message("ADT^A01^ADT_A01", "M8", body=["EVN|A01|yesterday", PID, "PV1|1|I"]),
            ("AE", "", "102", "E"),
        ),
        (
            message("ADT^A01^ADT_A01", "M9", body=[EVN, PID[:-1] + "X", "PV1|1|I"]),
            ("AA", "PID^1^8", "103", "W"),
        ),
    ],
    ids=[
        "type",
        "event",
        "processing-id",
        "version",
        "no-control-id",
        "no-evn",
        "no-pid-3",
        "data-type",
        "table-value",
    ],
)
def test_errors_carry_their_table_0357_condition_severity_and_location(server, text, expected):
    (ack,) = send_original(open_run(server), text)
    if expected[2] == "203":  # an unsupported version is answered in the interface's own
        assert hl7.parse(ack).segment("MSH")(12)[0] == "2.5.1"
        parse_message(ack, validation_level=VALIDATION_LEVEL.STRICT).validate()
        assert codes(hl7.parse(ack)) == [expected]
        return
    assert codes(checked(ack, text)) == [expected]


def test_a_message_without_an_msh_is_rejected_with_a_strictly_valid_ack(server):
    (ack,) = send_original(open_run(server), "PID|1||MRN0042")
    parse_message(ack, validation_level=VALIDATION_LEVEL.STRICT).validate()
    parsed = hl7.parse(ack)
    assert str(parsed.segment("MSA")) == 'MSA|AR|""'  # no MSH-10 to echo: HL7's null
    assert codes(parsed) == [("AR", "MSH", "100", "E")]


def test_a_refused_message_gets_a_207_in_a_strictly_valid_ack(server):
    text = message("ADT^A01^ADT_A01", "EARLY1")
    (ack,) = send_original(open_run(server, start=False), text)
    parsed = checked(ack, text)
    assert codes(parsed) == [("AR", "", "207", "E")]
    assert "no started task run" in str(parsed.segment("ERR")(8))


@pytest.mark.parametrize(
    ("conditions", "kind", "answers"),
    [
        ("AL|AL", "ADT^A01^ADT_A01", ["CA", "AA"]),
        ("AL|NE", "ORU^R01^ORU_R01", ["CA"]),
        ("NE|AL", "SIU^S12^SIU_S12", ["AA"]),
        ("SU|SU", "ORM^O01^ORM_O01", ["CA", "AA"]),
        ("ER|ER", "ADT^A01^ADT_A01", []),
        ("NE|NE", "ADT^A01^ADT_A01", []),
        ("ER|ER", "MDM^T02", ["CR"]),
        ("AL|ER", "ADT^A99^ADT_A01", ["CR"]),
        ("AL|ER", "ADT^A01^ADT_A01+no-evn", ["CA", "AE"]),
        ("ER|AL", "ADT^A01^ADT_A01+no-evn", ["AE"]),
        ("|AL", "ADT^A01^ADT_A01", ["AA"]),
    ],
)
def test_enhanced_mode_sends_the_acks_msh_15_and_msh_16_ask_for(server, conditions, kind, answers):
    kind, _, broken = kind.partition("+")
    body = [PID, "PV1|1|I"] if broken else None
    text = message(kind, "E1", ack=conditions, body=body)
    acks = send_enhanced(open_run(server), text, len(answers))
    assert [str(hl7.parse(ack).segment("MSA")(1)) for ack in acks] == answers
    for ack in acks:
        checked(ack, text)
    if len(acks) == 2:
        assert hl7.parse(acks[0]).segment("MSH")(10) != hl7.parse(acks[1]).segment("MSH")(10)


def test_original_mode_answers_every_message_on_one_connection(server):
    where = open_run(server)
    first, second = message("ADT^A01^ADT_A01", "O1"), message("MDM^T02", "O2")
    acks = send_original(where, first, second)
    assert [
        codes(checked(ack, sent))[0][0] for ack, sent in zip(acks, (first, second), strict=True)
    ] == [
        "AA",
        "AR",
    ]
