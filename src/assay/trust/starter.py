"""`assay init`: a small world that validates and passes with the reference agent as written.

One SQLite table, one tool, one task with a reference solution, a wrong solution and checks of
each type, in the file formats of `worlds/shop`: a start to edit, not a toy to replace.
"""

from __future__ import annotations

from pathlib import Path

from assay.errors import UsageError
from assay.formats.files import shown
from assay.formats.load import TASKS_DIR, WORLD_FILE
from assay.trust.scaffold import ID, Scaffolded

WORLD = """\
# {name}: a help desk with tickets to close. Edit it into your own world.
name = "{name}"
version = "1"
description = "A help desk: tickets that an agent may close."
clock = "2026-03-02T09:00:00Z"       # the world's time starts here, the same every reset
tools = ["tools.py"]

[database]
schema = "schema.sql"
seed = ["seed.sql"]

[roles.support]
description = "Help desk support: closes tickets that are done."
tools = ["close_ticket"]
"""

SCHEMA = """\
CREATE TABLE tickets (
  id TEXT PRIMARY KEY,
  subject TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('open', 'closed')),
  closed_at TEXT
);
"""

SEED = """\
INSERT INTO tickets (id, subject, status) VALUES
  ('T-1', 'Printer on floor 2 is jammed', 'open'),
  ('T-2', 'Password reset for dana@example.com', 'open'),
  ('T-3', 'New laptop for Sam', 'open');
"""

TOOLS = '''\
"""The world's tools. Each is a typed function; its signature is what an agent sees."""

from __future__ import annotations

from assay import ToolError, tool


@tool(writes=True)
def close_ticket(world, ticket_id: str) -> dict:
    """Close an open ticket."""
    ticket = world.db.row("SELECT status FROM tickets WHERE id = ?", ticket_id)
    if ticket is None:
        raise ToolError("not_found", f"no ticket {ticket_id}")
    if ticket["status"] == "closed":
        raise ToolError("already_closed", f"ticket {ticket_id} is already closed")
    closed_at = world.now().isoformat().replace("+00:00", "Z")
    world.db.execute(
        "UPDATE tickets SET status = 'closed', closed_at = ? WHERE id = ?", closed_at, ticket_id
    )
    return {"ticket": ticket_id, "status": "closed", "closed_at": closed_at}
'''

TASK = """\
title = "Close a ticket that was fixed"
split = "train"                 # train | dev | holdout
role = "support"
max_turns = 5

[customer]
request = "The password reset is done, thanks. Please close ticket T-2."

[[checks]]
name = "T-2 is closed"
sql = "SELECT status FROM tickets WHERE id = 'T-2'"
expect = "closed"

[[checks]]
name = "No other ticket is closed"
type = "rule"                   # goal (default) | rule | optional
sql = "SELECT count(*) FROM tickets WHERE id <> 'T-2' AND status = 'closed'"
expect = 0

[[checks]]
name = "The customer was told"
type = "optional"
assert = "answer"
contains = ["closed"]

[solution]                      # the reference solution: it must pass
steps = [
  { call = "close_ticket", args = { ticket_id = "T-2" } },
  { finish = "Ticket T-2 is closed." },
]

[[wrong]]                       # wrong solutions: each must fail
name = "closes the wrong ticket"
steps = [
  { call = "close_ticket", args = { ticket_id = "T-1" } },
  { finish = "Ticket closed." },
]
"""

TASK_ID = "close-ticket"


def init_world(target: Path) -> Scaffolded:
    """Write the starter world into `target`, which must not exist or be an empty directory."""
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        what = "a directory that is not empty" if target.is_dir() else "a file"
        raise UsageError(f"NAME: {shown(target)} is {what}; give a new directory")
    name = target.resolve().name
    if not ID.match(name):
        raise UsageError(
            f"NAME: {name!r} is not a world name (letters, digits, '_', '.', '-'; "
            "starting with a letter or digit)"
        )
    files = {
        WORLD_FILE: WORLD.format(name=name),
        "schema.sql": SCHEMA,
        "seed.sql": SEED,
        "tools.py": TOOLS,
        f"{TASKS_DIR}/{TASK_ID}.toml": TASK,
    }
    for relative, text in files.items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return Scaffolded(
        created=target,
        next_step=f"`assay validate {shown(target)}`, then `assay run {shown(target)}`.",
    )
