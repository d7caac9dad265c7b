"""Small worlds written into temporary directories, for tests that need a world of their own."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# What each backend says when a read-only query tries to delete, after "refused: ".
WRITE_REFUSED = {
    "sqlite": "not authorized",
    "postgresql": "only a query may run here, not DELETE",
}
SHOP = ROOT / "worlds" / "shop"

DESK_WORLD = """
name = "desk"
version = "1"
clock = "2026-03-02T09:00:00Z"
tools = ["tools.py"]
verifiers = ["verifiers.py"]

[database]
schema = "schema.sql"
seed = ["seed.sql"]

[services]
email = "email"
log = "recorder"

[roles.desk]
tools = ["read_notes", "add_note", "add_then_refuse", "explode", "notify", "stamp", "bad_result", "retry_operation"]

[roles.admin]
tools = ["admin_only"]
"""

DESK_SCHEMA = """
CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL, at TEXT);
CREATE TABLE numbers (name TEXT PRIMARY KEY, value TEXT);
"""

DESK_SEED = """
INSERT INTO notes (text) VALUES ('first'), ('second');
INSERT INTO numbers (name, value) VALUES ('ten', '10'), ('nine', '9');
"""

DESK_TOOLS = '''
from assay import ToolError, tool


@tool
def read_notes(world) -> list:
    """Every note."""
    return world.db.rows("SELECT id, text FROM notes ORDER BY id")


@tool(writes=True)
def add_note(world, text: str, pinned: bool = False) -> dict:
    """Add a note."""
    written = world.db.execute("INSERT INTO notes (text) VALUES (?)", text)
    return {"id": written.lastrowid, "pinned": pinned}


@tool(writes=True)
def add_then_refuse(world, text: str) -> dict:
    """Writes, then refuses: the write must be undone."""
    world.db.execute("INSERT INTO notes (text) VALUES (?)", text)
    world.services["log"].request("attempt", {"text": text})
    raise ToolError("refused", f"will not keep {text!r}")


@tool(writes=True)
def explode(world) -> dict:
    """A tool with a bug."""
    raise RuntimeError("boom")


@tool(writes=True)
def notify(world, to: str, body: str) -> dict:
    """Send an email."""
    return world.services["email"].request("send", {"to": to, "subject": "note", "body": body})


@tool(writes=True)
def stamp(world) -> dict:
    """Write the world's time."""
    world.db.execute("INSERT INTO notes (text, at) VALUES ('stamp', ?)", world.now().isoformat())
    return {"at": world.now().isoformat()}


@tool
def bad_result(world) -> object:
    """Returns something JSON cannot carry."""
    return object()


@tool
def admin_only(world) -> dict:
    """Only admins."""
    return {}
'''

DESK_VERIFIERS = """
from assay import check, optional, verifier


@verifier("VER-NOTES")
def notes_added(final, initial, ctx):
    added = final.value("SELECT count(*) FROM notes") - initial.value("SELECT count(*) FROM notes")
    return [
        check("A note was added", added >= 1, f"{added} notes added"),
        optional("Exactly one note was added", added == 1, f"{added} notes added"),
    ]


@verifier("VER-OPTIONAL-ONLY")
def only_optional(final, initial, ctx):
    return [optional("corroborating", True, "")]


@verifier("VER-RAISES")
def raises(final, initial, ctx):
    raise ValueError("verifier bug")


@verifier("VER-OUTPUT")
def mentions(final, initial, ctx):
    return [check("The output says done", "done" in ctx.agent_output, repr(ctx.agent_output))]
"""

BASIC_TASK = """
title = "Add a note"
role = "desk"

[customer]
request = "Please add a note saying hello."

[[checks]]
name = "A hello note exists"
sql = "SELECT count(*) FROM notes WHERE text = 'hello'"
expect = 1

[solution]
steps = [ { call = "add_note", args = { text = "hello" } }, { finish = "done" } ]
"""


def write_world(root: Path, tasks: dict[str, str] | None = None, **files: str) -> Path:
    """A desk world in `root`; keyword arguments replace its files (world_toml, schema, tools...)."""
    root.mkdir(parents=True, exist_ok=True)
    contents = {
        "world.toml": files.get("world_toml", DESK_WORLD),
        "schema.sql": files.get("schema", DESK_SCHEMA),
        "seed.sql": files.get("seed", DESK_SEED),
        "tools.py": files.get("tools", DESK_TOOLS),
        "verifiers.py": files.get("verifiers", DESK_VERIFIERS),
    }
    for name, text in contents.items():
        (root / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    (root / "tasks").mkdir(exist_ok=True)
    for task_id, text in (tasks if tasks is not None else {"basic": BASIC_TASK}).items():
        (root / "tasks" / f"{task_id}.toml").write_text(
            textwrap.dedent(text).lstrip(), encoding="utf-8"
        )
    return root


def copy_shop(destination: Path) -> Path:
    shutil.copytree(SHOP, destination, ignore=shutil.ignore_patterns("baselines"))
    return destination


LONG_ID = "refund-double-charge-of-a-customer-billed-twice-by-the-payment-provider-in-march"


def shop_with_a_long_task_id(destination: Path) -> Path:
    """The shop with one task renamed to LONG_ID, an id far wider than 80 columns."""
    world = copy_shop(destination)
    (world / "tasks" / "refund-double-charge.toml").rename(world / "tasks" / f"{LONG_ID}.toml")
    return world
