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
