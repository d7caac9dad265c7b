"""One world, both databases: a world written for SQLite — INSERT OR IGNORE, INSERT OR REPLACE,
datetime(), json_extract compared with a number, ||, LIKE, AUTOINCREMENT — runs unchanged on
PostgreSQL with identical outcomes and state; what has no translation is refused at load."""

from __future__ import annotations

import json

import pytest
from worldkit import write_world

from assay.errors import SpecError
from assay.runs import prepare, run_benchmark
from assay.runs.benchmark import open_benchmark
from assay.trust.validate import validate_world

WORLD = """
name = "lite"
version = "1"
clock = "2026-03-02T09:00:00Z"
tools = ["tools.py"]
verifiers = ["verifiers.py"]

[database]
schema = "schema.sql"
seed = ["seed.sql"]

[roles.desk]
tools = ["sign_up", "set_setting", "big_events"]
"""

SCHEMA = """
CREATE TABLE accounts (
  id INTEGER PRIMARY KEY AUTOINCREMENT, email TEXT UNIQUE NOT NULL, name TEXT, created_at TEXT
);
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE events (id INTEGER PRIMARY KEY, payload TEXT NOT NULL);
"""

SEED = """
INSERT INTO accounts (email, name, created_at) VALUES ('ann@example.com', 'Ann', '2026-03-01 10:00:00');
REPLACE INTO settings (key, value) VALUES ('theme', 'light');
INSERT OR IGNORE INTO settings (key, value) VALUES ('theme', 'blue');
INSERT INTO events (payload) VALUES ('{"kind": "login", "amount": 120}'), ('{"kind": "buy", "amount": 40}');
"""

TOOLS = '''
from assay import tool


@tool(writes=True)
def sign_up(world, email: str, name: str) -> dict:
    """Open an account; signing up twice keeps the first."""
    world.db.execute(
        "INSERT OR IGNORE INTO accounts (email, name, created_at) VALUES (?, ?, datetime(?, '+1 day'))",
        email,
        name,
        world.now().strftime("%Y-%m-%d %H:%M:%S"),
    )
    return world.db.row(
        "SELECT id, name || ' <' || email || '>' AS label FROM accounts WHERE email LIKE ?",
        email.upper(),
    )


@tool(writes=True)
def set_setting(world, key: str, value: str) -> dict:
    """Set a setting, replacing what it was."""
    world.db.execute(
        "INSERT OR REPLACE INTO settings (key, value) VALUES (:key, :value)",
        {"key": key, "value": value},
    )
    return {"ok": True}


@tool
def big_events(world) -> list:
    """Events of more than 100."""
    return world.db.rows("SELECT id FROM events WHERE json_extract(payload, '$.amount') > 100")
'''

TASK = """
title = "Sign Bo up in the dark"
role = "desk"

[customer]
request = "Sign up bo@example.com (Bo) and switch the theme to dark."

[[checks]]
name = "Bo has one account"
sql = "SELECT count(*) FROM accounts WHERE email = 'bo@example.com'"
expect = 1

[[checks]]
name = "dated a day after the world's clock"
sql = "SELECT date(created_at) FROM accounts WHERE email = 'bo@example.com'"
expect = "2026-03-03"

[[checks]]
name = "the theme is dark, once"
sql = "SELECT group_concat(value) FROM settings WHERE key = 'theme'"
expect = "dark"

[[checks]]
name = "one big event"
type = "rule"
sql = "SELECT count(*) FROM events WHERE json_extract(payload, '$.amount') > 100"
expect = 1

[[checks]]
name = "nobody created in the future"
type = "rule"
sql = "SELECT count(*) FROM accounts WHERE created_at > datetime('now', '+1 year')"
expect = 0

[solution]
steps = [
  { call = "sign_up", args = { email = "bo@example.com", name = "Bo" } },
  { call = "sign_up", args = { email = "bo@example.com", name = "Bo again" } },
  { call = "set_setting", args = { key = "theme", value = "dark" } },
  { call = "big_events" },
  { finish = "Done." },
]

[[wrong]]
name = "leaves the theme light"
steps = [
  { call = "sign_up", args = { email = "bo@example.com", name = "Bo" } },
  { call = "set_setting", args = { key = "theme", value = "light" } },
  { finish = "Done." },
]
"""


@pytest.fixture
def lite(tmp_path):
    return write_world(
        tmp_path / "lite",
        tasks={"dark": TASK},
        world_toml=WORLD,
        schema=SCHEMA,
        seed=SEED,
        tools=TOOLS,
        verifiers="",
    )


def outcomes(root, world_db=None):
    benchmark = open_benchmark(root, world_db=world_db)
    try:
        found = {}
        for agent in ("reference", "noop", "wrong:leaves the theme light"):
            (run,) = prepare(benchmark, agent, ["dark"])
            (result,) = run_benchmark(benchmark, agent, [run]).task_runs
            found[agent] = (
                result.outcome,
                result.final_state_hash,
                [(check.name, check.passed) for check in result.checks],
                json.dumps(result.trajectory["steps"] if result.trajectory else None, default=str),
            )
        return found
    finally:
        benchmark.close()


def test_the_sqlite_world_runs_unchanged_on_postgresql(lite, postgres_url):
    on_sqlite = outcomes(lite)
    assert on_sqlite["reference"][0] == "verified"
    assert on_sqlite["noop"][0] == "not_achieved"
    assert on_sqlite["wrong:leaves the theme light"][0] == "not_achieved"
    on_postgres = outcomes(lite, postgres_url)
    assert on_postgres == on_sqlite  # outcomes, check runs, final-state hashes, trajectories


def test_validate_proves_the_world_on_postgresql(lite, postgres_url):
    [task] = validate_world(lite, world_db=postgres_url).tasks
    assert task.passed, task.failures()
    assert all(
        task.proofs[name].status == "passed"
        for name in ("static", "noop", "reference", "wrong", "replay")
    )


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (
            {"tools": TOOLS.replace("SELECT id FROM events", "SELECT total(id) FROM events")},
            "tools.py: line 32: cannot run on PostgreSQL: total() has no PostgreSQL translation",
        ),
        (
            {"seed": SEED + "INSERT INTO settings (key, value) VALUES ('x', typeof(1));\n"},
            "seed.sql: statement 5: cannot run on PostgreSQL: typeof() has no PostgreSQL translation",
        ),
        (
            {"task": TASK.replace("WHERE key = 'theme'", "WHERE key GLOB 'th*'")},
            "tasks/dark.toml: checks[2].sql: cannot run on PostgreSQL: GLOB has no PostgreSQL "
            "translation; use LIKE",
        ),
        (
            {"task": TASK.replace("datetime('now', '+1 year')", "datetime('now', 'weekday 0')")},
            "tasks/dark.toml: checks[4].sql: cannot run on PostgreSQL: datetime(): modifier "
            "'weekday 0' has no PostgreSQL translation",
        ),
    ],
)
def test_what_has_no_translation_is_refused_at_load(tmp_path, postgres_url, change, where):
    root = write_world(
        tmp_path / "lite",
        tasks={"dark": change.get("task", TASK)},
        world_toml=WORLD,
        schema=SCHEMA,
        seed=change.get("seed", SEED),
        tools=change.get("tools", TOOLS),
        verifiers="",
    )
    open_benchmark(root).close()  # SQLite runs it as written
    with pytest.raises(SpecError) as refused:
        open_benchmark(root, world_db=postgres_url)
    assert f"lite/{where}" in str(refused.value)
    assert len(str(refused.value).splitlines()) == 1
