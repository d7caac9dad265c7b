"""A locked connection can only read, whatever the statement says, and only for so long."""

# SQLite only: its authorizer guard; the PostgreSQL guard has tests/world/postgres/test_guard.py.

from __future__ import annotations

import os
import signal
import sqlite3
import time

import pytest
from worldkit import write_world

from assay.world import load_world
from assay.world.guard import READ_MARK, WROTE, QueryFailed, QueryRefused, QueryTimeout


@pytest.fixture
def locked(tmp_path):
    live = load_world(write_world(tmp_path)).reset()
    live.freeze()
    return live.db


@pytest.mark.parametrize(
    "sql",
    [
        "DELETE FROM notes",
        "UPDATE notes SET text = 'x'",
        "INSERT INTO notes (text) VALUES ('x')",
        "DROP TABLE notes",
        "CREATE TABLE t (a)",
        "ATTACH ':memory:' AS other",
        "PRAGMA query_only = 0",
        "WITH gone AS (SELECT 1) DELETE FROM notes",
        "BEGIN",
        "VACUUM",
        "VACUUM INTO 'copy.db'",  # a write of a file: refused, not a failed query
    ],
)
def test_writes_are_refused_at_run_time(locked, sql):
    with pytest.raises(QueryRefused, match=r"^refused: "):
        locked.run_limited(1, sql, {})
    assert locked.run_limited(1, "SELECT count(*) FROM notes", {})[1] == [(2,)]


def test_two_statements_are_refused(locked):
    with pytest.raises(QueryRefused, match=r"^refused: one statement at a time$"):
        locked.run_limited(1, "SELECT 1; DELETE FROM notes", {})


def test_reading_is_allowed(locked):
    names, rows = locked.run_limited(
        1,
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) SELECT sum(i) FROM n",
        {},
    )
    assert (names, rows) == (["sum(i)"], [(6,)])


def test_parameters_are_bound_not_pasted(locked):
    sneaky = "x'; DELETE FROM notes; --"
    assert locked.run_limited(1, "SELECT count(*) FROM notes WHERE text = :t", {"t": sneaky})[
        1
    ] == [(0,)]


def test_a_slow_query_is_stopped(locked):
    forever = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    )
    with pytest.raises(QueryTimeout, match=r"stopped after 0\.2s"):
        locked.run_limited(0.2, forever, {})


def test_a_query_that_fails_for_another_reason_says_why(locked):
    with pytest.raises(QueryFailed, match=r"^no such column: nope$"):
        locked.run_limited(1, "SELECT nope FROM notes", {})


def test_a_query_that_ended_in_time_is_not_interrupted_later(locked):
    import time

    long = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) SELECT count(*) FROM n"  # fmt: skip
    assert locked.run_limited(0.1, "SELECT count(*) FROM notes", {})[1] == [(2,)]
    began = time.monotonic()
    assert locked.run_limited(60, long, {})[1] == [(3000000,)]  # the first one's deadline passes
    assert time.monotonic() - began > 0.1  # (else this proves nothing)


def test_every_way_a_query_ends_disarms_the_watchdog(locked):
    """A query that ended, however, leaves nothing armed: the watchdog cannot interrupt a later one."""
    from assay.world.limits import watchdog

    forever = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    )
    before = set(watchdog._live)
    locked.run_limited(1, "SELECT count(*) FROM notes", {})
    for sql, stopped in [
        ("DELETE FROM notes", QueryRefused),
        ("SELECT nope FROM notes", QueryFailed),
        (forever, QueryTimeout),
    ]:
        with pytest.raises(stopped):
            locked.run_limited(0.2, sql, {})
    assert watchdog._live == before


def test_a_forked_child_still_stops_a_runaway_query(locked):
    """The watchdog's thread is not copied into a forked child (a process-pool worker): the
    child's first guarded query starts one of its own, and its deadline still holds."""
    forever = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    )
    locked.run_limited(1, "SELECT count(*) FROM notes", {})  # the parent's thread is running
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through its exit code
        code = 1
        try:
            locked.run_limited(0.2, forever, {})
        except QueryTimeout:
            code = 0
        finally:
            os._exit(code)
    deadline = time.monotonic() + 10
    while (ended := os.waitpid(child, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    if ended[0] == 0:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        pytest.fail("the forked child's runaway query was never stopped")
    assert os.waitstatus_to_exitcode(ended[1]) == 0


def test_the_state_hash_leaves_the_copy_locked(locked):
    """The hash reads without the authorizer; the lock is back the moment it has read."""
    before = locked.state_hash()
    with pytest.raises(QueryRefused, match=r"^refused: "):
        locked.run_limited(1, "DELETE FROM notes", {})
    assert locked.state_hash(full=True) == before
    with pytest.raises(QueryRefused, match=r"^refused: "):
        locked.run_limited(1, "PRAGMA query_only = 0", {})


def test_the_state_hash_leaves_a_live_copy_tracking_its_writes(tmp_path):
    live = load_world(write_world(tmp_path)).reset()
    first = live.db.state_hash()
    assert live.db.written == set()
    live.db.execute("UPDATE notes SET text = 'changed'")
    assert live.db.written == {"notes"}
    assert live.db.state_hash() != first
    live.db.execute("DELETE FROM notes")
    live.db.connection.execute("CREATE TABLE later (a)")
    assert live.db.may_have_changed("notes") and live.db.reshaped == {"later"}
    live.close()


def test_a_query_is_limited_by_the_time_it_works_not_the_time_it_waits(locked):
    """On a machine busy with other work a check waits for a core; only its own CPU time counts,
    so the same rollout scores the same, loaded or not."""
    import time

    locked.connection.create_function("nap", 1, time.sleep)  # waits without working
    began = time.monotonic()
    assert locked.run_limited(0.1, "SELECT nap(0.5) IS NULL", {})[1] == [(1,)]
    assert time.monotonic() - began >= 0.5  # five times its limit, and not stopped


def test_a_query_that_only_waits_is_stopped_at_its_wall_clock_ceiling(locked):
    import time

    from assay.world.limits import WALL_CEILING

    locked.connection.create_function("nap", 1, time.sleep)
    naps = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) SELECT count(nap(0.01)) FROM n"  # fmt: skip
    began = time.monotonic()
    with pytest.raises(QueryTimeout, match=r"stopped after 0\.05s"):
        locked.run_limited(0.05, naps, {})  # ten seconds of naps
    assert 0.05 * WALL_CEILING <= time.monotonic() - began < 5


def test_a_check_is_prepared_under_the_lock_whatever_a_tool_ran(tmp_path):
    """The copy's authorizer sees a statement when SQLite prepares it, and a prepared statement is
    kept for its text: a check's query is marked, so a tool's write of the same text is not the
    statement the check runs."""
    live = load_world(write_world(tmp_path)).reset()
    insert = "INSERT INTO notes (text) VALUES ('x')"
    live.db.execute(insert)
    live.freeze()
    with pytest.raises(QueryRefused, match=r"^refused: not authorized$"):
        live.db.run_limited(1, insert, {})
    assert live.db.run_limited(1, "SELECT count(*) FROM notes", {})[1] == [(3,)]
    live.close()


def test_a_query_that_wrote_past_the_authorizer_is_refused_and_taken_back(tmp_path):
    """The lock's second layer: a statement prepared before the lock with the very text a check's
    query runs as (which no tool can know) is not asked of the authorizer again; what it writes is
    refused and undone."""
    live = load_world(write_world(tmp_path)).reset()
    insert = "INSERT INTO notes (text) VALUES ('x')"
    live.db.execute(READ_MARK + insert)
    live.freeze()
    before = live.db.state_hash(full=True)
    with pytest.raises(QueryRefused, match=f"^{WROTE}$"):
        live.db.run_limited(1, insert, {})
    assert live.db.run_limited(1, "SELECT count(*) FROM notes", {})[1] == [(3,)]
    assert live.db.state_hash(full=True) == before
    live.close()


def test_a_copys_authorizer_cannot_be_replaced(tmp_path):
    live = load_world(write_world(tmp_path)).reset()
    with pytest.raises(sqlite3.ProgrammingError, match="authorizer cannot be changed"):
        live.db.connection.set_authorizer(None)  # a tool that reached past `world.db`
    live.close()
