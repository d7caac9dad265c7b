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
