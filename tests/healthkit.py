"""Small worlds with healthcare services, for the tests of those services."""

from __future__ import annotations

import textwrap
from pathlib import Path

WORLD = """
name = "line"
version = "1"
clock = "2026-03-02T09:00:00Z"

[database]
schema = "schema.sql"

[services.payer_line]
kind = "voice"
number = "+1-800-555-0100"
greeting = "Acme member services. For eligibility press 1 or say eligibility."
menu = [{ dtmf = "1", match = ["eligibility"], say = "Please say the member ID." }]
replies = [
  { match = ["W123456789"], say = "Thank you. And the date of birth?" },
  { match = ["1977", "may 14"], say = "The member is active on Gold PPO; the office copay is 25 dollars." },
]
default_reply = "Sorry, I didn't get that."

[roles.billing]
tools = ["voice_call", "voice_say", "voice_press", "voice_hangup"]
"""

TASK = """
title = "Confirm eligibility"
role = "billing"

[customer]
request = "Call the payer line and confirm member W123456789 (born 1977-05-14) is covered."

[[checks]]
name = "Verified identity before asking about benefits"
assert = "voice-transcript"
speaker = "agent"
contains = ["member ID", "date of birth"]
any_of = [["copay", "co-pay"]]
not_contains = ["social security number"]
"""


def write_line_world(root: Path) -> Path:
    """A world whose one service is the payer's voice line, with one eligibility task."""
    (root / "tasks").mkdir(parents=True)
    (root / "world.toml").write_text(textwrap.dedent(WORLD), encoding="utf-8")
    (root / "schema.sql").write_text("CREATE TABLE notes (id INTEGER PRIMARY KEY);\n")
    (root / "tasks" / "eligibility.toml").write_text(textwrap.dedent(TASK), encoding="utf-8")
    return root


PORTAL_WORLD = """
name = "payer"
version = "1"
clock = "2026-03-02T09:00:00Z"

[database]
schema = "schema.sql"

[services.payer_portal]
kind = "portal"
flavor = "prior-auth"
seed = ["data/portal/patients.jsonl"]

[services.payer_portal.resources.patients]
key = "member_id"

[services.payer_portal.resources.prior_auth]
key = "request_id"
required = ["patient_member_id", "procedure_code", "provider_npi", "diagnosis_codes"]
determinations = [
  { procedure_code = "72148", status = "approved", auth_number_prefix = "AUTH" },
  { procedure_code = "70553", status = "need_more_info", reason = "attach the neurology note" },
]
default_determination = { status = "pending" }

[services.payer_portal.resources.copay_note]
key = "member_id"

[roles.billing]
tools = ["portal_submit", "portal_update", "portal_get", "portal_search"]
"""

PATIENTS = (
    '{"member_id": "W123456789", "name": "Chidi Okafor", "plan": "GOLD PPO"}\n'
    '{"member_id": "W555000111", "name": "Ana Reyes", "plan": "SILVER HMO"}\n'
)

PORTAL_TASK = """
title = "Submit the lumbar MRI prior auth"
role = "billing"

[customer]
request = "Submit a prior auth for member W123456789: lumbar MRI 72148, NPI 1234567890, M54.5."

[[checks]]
name = "Prior auth approved as submitted"
assert = "portal-state-match"
correlate_by = { resource = "prior_auth", patient_member_id = "W123456789" }
assertions = [
  { path = "procedure_code", expected = "72148" },
  { path = "diagnosis_codes.0", expected = "M54.5" },
  { path = "status", expected = "approved" },
]
count = 1
changed = true
"""


def write_portal_world(root: Path) -> Path:
    """A world whose one service is a payer portal, with one prior-auth task."""
    (root / "tasks").mkdir(parents=True)
    (root / "data" / "portal").mkdir(parents=True)
    (root / "world.toml").write_text(textwrap.dedent(PORTAL_WORLD), encoding="utf-8")
    (root / "schema.sql").write_text("CREATE TABLE notes (id INTEGER PRIMARY KEY);\n")
    (root / "data" / "portal" / "patients.jsonl").write_text(PATIENTS, encoding="utf-8")
    (root / "tasks" / "prior-auth.toml").write_text(textwrap.dedent(PORTAL_TASK), encoding="utf-8")
    return root


EHR_WORLD = """
name = "ehr"
version = "1"
clock = "2026-03-02T09:00:00Z"

[database]
schema = "schema.sql"

[services.ehr]
kind = "fhir"
seed = ["data/fhir/*.json"]
base_url = "http://ehr.local/fhir"

[roles.scheduler]
tools = ["fhir_read", "fhir_vread", "fhir_search", "fhir_create", "fhir_update", "fhir_delete", "fhir_transaction", "retry_operation"]
"""

EHR_SEEDS = {
    "patients.json": {
        "resourceType": "Bundle",
        "type": "collection",
        "entry": [
            {
                "resource": {
                    "resourceType": "Patient",
                    "id": "john-smith",
                    "gender": "male",
                    "birthDate": "1970-01-15",
                    "identifier": [{"system": "http://genhosp.example/mrn", "value": "MRN0001"}],
                    "name": [{"family": "Smith", "given": ["John"]}],
                }
            },
            {
                "resource": {
                    "resourceType": "Patient",
                    "id": "zoe-muller",
                    "gender": "female",
                    "birthDate": "1988-06-02",
                    "identifier": [{"system": "http://genhosp.example/mrn", "value": "MRN0002"}],
                    "name": [{"family": "Müller", "given": ["Zoë"]}],
                }
            },
        ],
    },
    "rivera.json": {
        "resourceType": "Practitioner",
        "id": "rivera",
        "name": [{"family": "Rivera", "given": ["Ana"], "prefix": ["Dr."]}],
    },
    "slots.json": {
        "resourceType": "Bundle",
        "type": "collection",
        "entry": [
            {
                "resource": {
                    "resourceType": "Schedule",
                    "id": "rivera-schedule",
                    "actor": [{"reference": "Practitioner/rivera"}],
                }
            },
            {
                "resource": {
                    "resourceType": "Slot",
                    "id": "slot-wed",
                    "status": "free",
                    "schedule": {"reference": "Schedule/rivera-schedule"},
                    "start": "2026-03-04T10:00:00Z",
                    "end": "2026-03-04T10:30:00Z",
                }
            },
            {
                "resource": {
                    "resourceType": "Slot",
                    "id": "slot-thu",
                    "status": "free",
                    "schedule": {"reference": "Schedule/rivera-schedule"},
                    "start": "2026-03-05T10:00:00Z",
                    "end": "2026-03-05T10:30:00Z",
                }
            },
        ],
    },
}

BOOKING_TASK = """
title = "Book the follow-up"
role = "scheduler"
max_turns = 40

[customer]
request = "Book John Smith with Dr. Rivera on the first free Thursday slot."

[[checks]]
name = "One booked appointment with Dr. Rivera on Thursday"
assert = "fhir-resource-state"
resource_type = "Appointment"
search = { patient = "Patient/john-smith", status = "booked" }
fields = [
  { path = "participant.1.actor.display", expected = "Dr. Rivera" },
  { path = "start", expected = "2026-03-05T10:00:00Z" },
]
count = 1
changed = true

[[checks]]
name = "The Thursday slot is busy"
type = "rule"
sql = "SELECT json_extract(resource, '$.status') FROM sandbox_fhir_resources WHERE resource_type = 'Slot' AND id = 'slot-thu'"
expect = "busy"
"""

APPOINTMENT = {
    "resourceType": "Appointment",
    "status": "booked",
    "slot": [{"reference": "Slot/slot-thu"}],
    "start": "2026-03-05T10:00:00Z",
    "end": "2026-03-05T10:30:00Z",
    "participant": [
        {"actor": {"reference": "Patient/john-smith"}, "status": "accepted"},
        {
            "actor": {"reference": "Practitioner/rivera", "display": "Dr. Rivera"},
            "status": "accepted",
        },
    ],
}


def write_ehr_world(root: Path) -> Path:
    """A world whose one service is a FHIR server with a few seeds and a booking task."""
    import json

    (root / "tasks").mkdir(parents=True)
    (root / "data" / "fhir").mkdir(parents=True)
    (root / "world.toml").write_text(textwrap.dedent(EHR_WORLD), encoding="utf-8")
    (root / "schema.sql").write_text("CREATE TABLE notes (id INTEGER PRIMARY KEY);\n")
    for name, data in EHR_SEEDS.items():
        (root / "data" / "fhir" / name).write_text(json.dumps(data), encoding="utf-8")
    (root / "tasks" / "book.toml").write_text(textwrap.dedent(BOOKING_TASK), encoding="utf-8")
    return root


def tool_results(result) -> list[dict]:
    """Every tool result event of a task run's trajectory, in order."""
    return [
        event
        for step in result.trajectory["steps"]
        for event in step["events"]
        if event.get("type") == "tool_result"
    ]


HL7_WORLD = """
name = "interface"
version = "1"
clock = "2026-03-02T09:00:00Z"

[database]
schema = "schema.sql"

[services.hl7]
kind = "hl7"
inbox = ["data/hl7/inbox/*.hl7"]
version = "2.5.1"

[roles.clerk]
tools = ["hl7_send", "hl7_inbox"]
"""

ORU = (
    "MSH|^~\\&|LAB|GEN|EHR|GEN|20260302080000||ORU^R01|LAB0001|P|2.5.1\n"
    "PID|1||MRN0042^^^GEN^MR||Okafor^Chidi\n"
    "OBR|1||R1|80053^CMP^CPT\n"
    "OBX|1|NM|2345-7^Glucose^LN||182|mg/dL|70-99|H|||F\n"
)

HL7_TASK = """
title = "Register the walk-in"
role = "clerk"

[customer]
request = "Send the ADT^A04 for Chidi Okafor, MRN0042, born 1977-05-14, an emergency walk-in."

[[checks]]
name = "ADT^A04 sent for the walk-in"
assert = "hl7-structural"
correlate_by = { "MSH.9.1" = "ADT", "MSH.9.2" = "A04", "PID.3.1" = "MRN0042" }
fields = [
  { path = "PID.5.1", expected = "Okafor" },
  { path = "PID-5.2", expected = "Chidi" },
  { path = "PID.7", expected = "19770514" },
  { path = "PV1.2", expected = "E" },
]
count = 1
"""

A04 = "\r".join(
    [
        "MSH|^~\\&|ASSAY|ER|EHR|GEN|20260302090000||ADT^A04^ADT_A01|MSG0001|P|2.5.1",
        "EVN|A04|20260302090000",
        "PID|1||MRN0042^^^GEN^MR||Okafor^Chidi^E||19770514|M",
        "PV1|1|E|ER^01^A",
    ]
)


def write_hl7_world(root: Path) -> Path:
    """A world whose one service is an HL7 interface with one result in its inbox."""
    (root / "tasks").mkdir(parents=True)
    (root / "data" / "hl7" / "inbox").mkdir(parents=True)
    (root / "world.toml").write_text(textwrap.dedent(HL7_WORLD), encoding="utf-8")
    (root / "schema.sql").write_text("CREATE TABLE notes (id INTEGER PRIMARY KEY);\n")
    (root / "data" / "hl7" / "inbox" / "oru.hl7").write_text(ORU, encoding="utf-8")
    (root / "tasks" / "walk-in.toml").write_text(textwrap.dedent(HL7_TASK), encoding="utf-8")
    return root


FILES_WORLD = """
name = "dropbox"
version = "1"
clock = "2026-03-02T09:00:00Z"

[database]
schema = "schema.sql"

[services.sftp]
kind = "files"
seed = { "inbox/" = "data/files/inbox" }
writable = ["outbound/**", "archive/**"]
max_file_bytes = 2000

[roles.clerk]
tools = ["files_list", "files_read", "files_write", "files_move", "files_delete", "files_mkdir", "files_rmdir"]
"""

ROSTER_TASK = """
title = "Export the roster"
role = "clerk"

[customer]
request = "Export today's roster as outbound/roster/2026-03-02.csv (member_id, copay)."

[[checks]]
name = "Roster exported"
assert = "sftp-file-present"
glob = "outbound/roster/2026-03-02*.csv"
format = "csv"
fields = [
  { path = "rows[member_id=W123456789].copay", expected = 25 },
  { path = "$count(rows)", expected = 2 },
]
count = 1

[[checks]]
name = "Referral archived, not deleted"
assert = "sftp-file-present"
path = "archive/R-17.txt"
format = "text"
fields = [{ path = "$text", op = "contains", expected = "cardiology" }]
"""

ROSTER = "member_id,copay\nW123456789,25\nW555000111,40\n"


def write_files_world(root: Path) -> Path:
    """A world whose one service is a file tree with a referral in its inbox."""
    (root / "tasks").mkdir(parents=True)
    (root / "data" / "files" / "inbox" / "referrals").mkdir(parents=True)
    (root / "world.toml").write_text(textwrap.dedent(FILES_WORLD), encoding="utf-8")
    (root / "schema.sql").write_text("CREATE TABLE notes (id INTEGER PRIMARY KEY);\n")
    referral = root / "data" / "files" / "inbox" / "referrals" / "R-17.txt"
    referral.write_text("Referral R-17: Chidi Okafor to cardiology.\n", encoding="utf-8")
    (root / "tasks" / "roster.toml").write_text(textwrap.dedent(ROSTER_TASK), encoding="utf-8")
    return root


X12_WORLD = """
name = "clearing"
version = "1"
clock = "2026-03-02T09:00:00Z"

[database]
schema = "schema.sql"

[services.clearinghouse]
kind = "x12"
payers = "data/x12/payers.csv"
members = "data/x12/members.csv"
claims = "data/x12/claims.csv"
sender = "GENHOSP"
receiver = "CLEARINGHOUSE"

[roles.billing]
tools = ["x12_eligibility", "x12_claim_status", "x12_submit"]
"""

X12_DATA = {
    "payers.csv": "payer_id,name\nACME01,Acme Health Plan\n",
    "members.csv": (
        "member_id,payer_id,last,first,dob,active,plan,copay,deductible,coinsurance\n"
        "W123456789,ACME01,Okafor,Chidi,1977-05-14,true,Gold PPO,25,1500,20\n"
        "W555000111,ACME01,Reyes,Ana,1990-01-02,false,Silver HMO,40,3000,30\n"
    ),
    "claims.csv": (
        "claim_id,member_id,status_category,status_code,paid\n"
        "PCN0042,W123456789,F2,88,0\nPCN0043,W123456789,F1,65,120.50\n"
    ),
}

X12_TASK = """
title = "Check eligibility"
role = "billing"

[customer]
request = "Check coverage for member W123456789 (Acme, ACME01), born 1977-05-14."

[[checks]]
name = "The 271 shows active coverage and a $25 copay"
assert = "x12-response"
transaction_set = "271"
correlate_by = { "NM1[NM101=IL].09" = "W123456789" }
fields = [
  { path = "EB[1].01", expected = "1" },
  { path = "EB[EB01=B].07", expected = "25" },
  { path = "EB[EB01=C,EB06=23].07", expected = 1500 },
]
count = 1
"""


def isa(sender: str, receiver: str, control: str) -> str:
    return (
        f"ISA*00*{'':10}*00*{'':10}*ZZ*{sender:<15}*ZZ*{receiver:<15}"
        f"*260302*0900*^*00501*{control}*0*T*:~"
    )


def claim_837(claim_id: str = "PCN0042", charge: str = "125", release: bool = True) -> str:
    """An 837P with one claim, valid per the 5010 X222A1 map unless `release` is False."""
    clm = f"CLM*{claim_id}*{charge}***11:B:1*Y*A*Y" + ("*Y" if release else "")
    body = (
        "GS*HC*GENHOSP*ACME01*20260302*0900*102*X*005010X222A1~ST*837*0001*005010X222A1~"
        "BHT*0019*00*CLM-BATCH-0302*20260302*0900*CH~NM1*41*2*GENERAL HOSPITAL*****46*GENHOSP01~"
        "PER*IC*BILLING*TE*2125551212~NM1*40*2*ACME HEALTH PLAN*****46*ACME01~HL*1**20*1~"
        "NM1*85*2*GENERAL HOSPITAL*****XX*1234567893~N3*1 MAIN ST~N4*NEW YORK*NY*100011234~"
        "REF*EI*123456789~HL*2*1*22*0~SBR*P*18*******CI~"
        "NM1*IL*1*OKAFOR*CHIDI****MI*W123456789~N3*12 ELM ST~N4*NEW YORK*NY*100011234~"
        "DMG*D8*19770514*M~NM1*PR*2*ACME HEALTH PLAN*****PI*ACME01~"
        f"{clm}~HI*ABK:J069~LX*1~SV1*HC:99213*{charge}*UN*1***1~DTP*472*D8*20260301~"
        "SE*23*0001~GE*1*102~"
    )
    return isa("GENHOSP", "ACME01", "000000102") + body + "IEA*1*000000102~"


def write_x12_world(root: Path) -> Path:
    """A world whose one service is a clearinghouse with two members and two claims."""
    (root / "tasks").mkdir(parents=True)
    (root / "data" / "x12").mkdir(parents=True)
    (root / "world.toml").write_text(textwrap.dedent(X12_WORLD), encoding="utf-8")
    (root / "schema.sql").write_text("CREATE TABLE notes (id INTEGER PRIMARY KEY);\n")
    for name, text in X12_DATA.items():
        (root / "data" / "x12" / name).write_text(text, encoding="utf-8")
    (root / "tasks" / "eligibility.toml").write_text(textwrap.dedent(X12_TASK), encoding="utf-8")
    return root
