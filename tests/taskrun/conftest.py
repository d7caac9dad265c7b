from __future__ import annotations

import pytest
from worldkit import write_world

from assay.runs import open_benchmark

TASKS = {
    "basic": """
title = "Add a note"
role = "desk"
max_turns = 5

[customer]
request = "Please add a note saying hello."
default_reply = "Just add it."
replies = [
  { match = ["Email", "address"], say = "me@example.com" },
  { match = ["email"], say = "never reached: the first match wins" },
]

[[checks]]
name = "A hello note exists"
sql = "SELECT count(*) FROM notes WHERE text = 'hello'"
expect = 1

[[checks]]
name = "Said done"
assert = "python"
verifier = "VER-OUTPUT"
type = "optional"
""",
    "held": """
title = "A change before the first write"
role = "desk"

[customer]
request = "Add a note saying hello."
changes = [ { at = "first_write", say = "Sorry, make it goodbye." } ]

[[checks]]
name = "A goodbye note"
sql = "SELECT count(*) FROM notes WHERE text = 'goodbye'"
expect = 1

[[checks]]
name = "No hello note"
type = "rule"
sql = "SELECT count(*) FROM notes WHERE text = 'hello'"
expect = 0
""",
    "turn-change": """
title = "A change after turn 2"
role = "desk"

[customer]
request = "Add a note saying hello."
changes = [ { at = "turn:2", say = "Make it goodbye." } ]

[[checks]]
name = "A goodbye note"
sql = "SELECT count(*) FROM notes WHERE text = 'goodbye'"
expect = 1
""",
    "after-change": """
title = "A change after a tool"
role = "desk"

[customer]
request = "Add a note saying hello."
changes = [ { at = "after:add_note", say = "Also email me@example.com." } ]

[[checks]]
name = "Hello"
sql = "SELECT count(*) FROM notes WHERE text = 'hello'"
expect = 1
""",
    "faults": """
title = "Faults"
role = "desk"
max_turns = 10

[customer]
request = "Add notes."

[[faults]]
tool = "add_note"
call = 1
effect = "unknown"

[[faults]]
tool = "add_note"
call = 2
effect = "fail"

[[checks]]
name = "Exactly one hello"
sql = "SELECT count(*) FROM notes WHERE text = 'hello'"
expect = 1
""",
    "email-fault": """
title = "An email whose outcome is unknown"
role = "desk"

[customer]
request = "Email me."

[[faults]]
tool = "notify"
call = 1
effect = "unknown"

[[checks]]
name = "One email"
sql = "SELECT count(*) FROM sandbox_requests WHERE service = 'email'"
expect = 1
""",
    "slow": """
title = "A time limit"
role = "desk"
time_limit_s = 0.3

[customer]
request = "Add a note saying hello."

[[checks]]
name = "Hello"
sql = "SELECT count(*) FROM notes WHERE text = 'hello'"
expect = 1
""",
    "contacts": """
title = "Contacts"
role = "desk"
max_contacts = 1

[customer]
request = "Add a note."

[[checks]]
name = "A note"
assert = "python"
verifier = "VER-NOTES"
""",
}


@pytest.fixture(scope="session")
def desk(tmp_path_factory, world_db):
    """The desk world on each backend, opened once per backend for the session."""
    benchmark = open_benchmark(
        write_world(tmp_path_factory.mktemp("desk"), tasks=TASKS), world_db=world_db
    )
    yield benchmark
    benchmark.close()
