"""A SQLite copy is used again after its task run only when rolling back leaves it exactly the
snapshot: byte for byte the image, and with the counters a new connection has."""

from __future__ import annotations

import sqlite3
from contextlib import suppress

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from worldkit import write_world

from assay.world import load_world
from assay.world.copies import CopyPool
from assay.world.database import SqliteCopy
from assay.world.guard import QueryRefused
from assay.world.snapshot import COPY_CACHE_KIB

SCHEMA = """
CREATE TABLE people (id INTEGER PRIMARY KEY, email TEXT UNIQUE, score REAL);
CREATE TABLE tags (name TEXT PRIMARY KEY, hits INTEGER) WITHOUT ROWID;
CREATE TABLE log (id INTEGER PRIMARY KEY AUTOINCREMENT, line TEXT);
"""
SEED = """
INSERT INTO tags VALUES ('red', 1), ('blue', 2);
INSERT INTO log (line) VALUES ('started');
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
INSERT INTO people (id, email, score) SELECT i, 'p' || i || '@x', i / 7.0 FROM n;
"""

ids = st.integers(min_value=1, max_value=210)
UNSETTLING = ("CREATE", "PRAGMA", "COMMIT", "BEGIN", "ROLLBACK")
# what tools may do: writes and savepoints, which a rollback undoes, and what it does not undo
# (UNSETTLING: the copy must not be used again)
STATEMENTS = st.one_of(
    st.tuples(
        st.just("INSERT OR REPLACE INTO people (id, email) VALUES (?, ?)"),
        st.tuples(ids, st.text(max_size=2)),
    ),
    st.tuples(st.just("UPDATE people SET score = score + 1 WHERE id >= ?"), st.tuples(ids)),
    st.tuples(st.just("DELETE FROM people WHERE id = ?"), st.tuples(ids)),
    st.tuples(st.just("INSERT INTO log (line) VALUES (?)"), st.tuples(st.text(max_size=3))),
    st.tuples(st.just("INSERT OR REPLACE INTO tags VALUES (?, 0)"), st.tuples(st.text(max_size=2))),
    st.tuples(st.just("SAVEPOINT mine"), st.just(())),
    st.tuples(st.just("ROLLBACK TO mine"), st.just(())),
    st.tuples(st.just("CREATE TEMP TABLE scratch (x)"), st.just(())),
    st.tuples(st.just("CREATE TABLE extra (x)"), st.just(())),
    st.tuples(st.just("PRAGMA case_sensitive_like = ON"), st.just(())),
    st.tuples(st.just("PRAGMA recursive_triggers = OFF"), st.just(())),
    st.tuples(st.just("COMMIT"), st.just(())),
    st.tuples(st.just("BEGIN"), st.just(())),
    st.tuples(st.just("ROLLBACK"), st.just(())),
)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = write_world(tmp_path_factory.mktemp("copies"), schema=SCHEMA, seed=SEED)
    opened = load_world(root)
    yield opened
    opened.close()


def counters(connection: sqlite3.Connection) -> tuple[int, int]:
    return connection.execute("SELECT last_insert_rowid(), changes()").fetchone()


def starts_exact(copy: SqliteCopy) -> None:
    """The copy holds the snapshot byte for byte, and its counters read as a new connection's."""
    assert copy.connection.serialize() == copy.snapshot.image
    assert counters(copy.connection) == (0, 0)
    assert copy.execute("SELECT 1").lastrowid == 0


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(statements=st.lists(STATEMENTS, max_size=8), locked=st.booleans(), hashed=st.booleans())
def test_every_copy_starts_exactly_as_the_snapshot_whatever_the_last_one_did(
    world, statements, locked, hashed
):
    backend = world.backend
    copy = backend.open_copy()
    starts_exact(copy)
    for sql, params in statements:
        with suppress(sqlite3.Error):  # a refused or failed statement is the tool's own error
            copy.execute(sql, *params)
    if locked:
        copy.lock_readonly()  # as when a task run is graded
    if hashed:
        copy.state_hash()
    connection, settled = copy.connection, copy.settled
    if any(sql.startswith(UNSETTLING) and sql != "ROLLBACK TO mine" for sql, _ in statements):
        assert not settled
    backend.drop(copy)
    following = backend.open_copy()
    try:
        starts_exact(following)
        assert (following.connection is connection) == settled  # the last one given back
    finally:
        backend.drop(following)


def test_a_copy_that_only_wrote_is_rolled_back_and_used_again(world):
    backend = world.backend
    copy = backend.open_copy()
    copy.execute("UPDATE people SET email = 'changed' WHERE id = 1")
    copy.execute("INSERT INTO log (line) VALUES ('more')")
    connection = copy.connection
    backend.drop(copy)
    again = backend.open_copy()
    assert again.connection is connection
    starts_exact(again)
    assert again.value("SELECT email FROM people WHERE id = 1") == "p1@x"
    assert again.value("SELECT seq FROM sqlite_sequence WHERE name = 'log'") == 1
    backend.drop(again)


def test_a_copy_that_wrote_more_than_its_page_cache_holds_is_rolled_back_exactly(tmp_path):
    seed = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)"
        " INSERT INTO people (id, email, score) SELECT i, printf('%0100d', i), i FROM n;"
    )
    opened = load_world(write_world(tmp_path, schema=SCHEMA, seed=seed))
    try:
        backend = opened.backend
        fresh = backend.snapshot.open_copy()
        assert fresh.execute("PRAGMA cache_size").fetchone()[0] == -COPY_CACHE_KIB
        fresh.close()
        copy = backend.open_copy()
        assert len(copy.snapshot.image) > 2 * COPY_CACHE_KIB * 1024  # pages spill as it writes
        copy.execute("UPDATE people SET email = email || email, score = -score")
        assert copy.value("SELECT count(*) FROM people WHERE score < 0") == 4000
        connection = copy.connection
        backend.drop(copy)
        again = backend.open_copy()
        assert again.connection is connection
        starts_exact(again)
        backend.drop(again)
    finally:
        opened.close()


@pytest.mark.parametrize(
    "unsettling",
    [
        "PRAGMA case_sensitive_like = ON",  # a setting of the connection, not of the data
        "CREATE TEMP TABLE scratch (x)",  # the temp schema
        "CREATE TABLE extra (x)",
        "COMMIT",  # ends the transaction the task run runs in
    ],
)
def test_a_copy_whose_task_run_did_what_a_rollback_does_not_undo_is_closed(world, unsettling):
    backend = world.backend
    copy = backend.open_copy()
    with suppress(sqlite3.Error):
        copy.execute(unsettling)
    connection = copy.connection
    assert not copy.settled
    backend.drop(copy)
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        connection.execute("SELECT 1")
    fresh = backend.open_copy()
    assert fresh.connection is not connection
    starts_exact(fresh)
    backend.drop(fresh)


def test_a_write_prepared_in_an_earlier_task_run_on_the_copy_is_still_seen(world):
    """The copy's authorizer sees a statement once, when SQLite prepares it: a task run that runs
    again a statement an earlier task run prepared on the same copy still has its table written."""
    backend = world.backend
    update = "UPDATE tags SET hits = hits + 1 WHERE name = 'red'"
    first = backend.open_copy()
    start = first.state_hash()
    first.execute(update)
    changed = first.state_hash()
    connection = first.connection
    backend.drop(first)
    again = backend.open_copy()
    assert again.connection is connection
    assert again.state_hash() == start
    again.execute(update)
    assert again.may_have_changed("tags")
    assert again.state_hash() == changed != start
    backend.drop(again)


def test_a_copy_whose_connection_settings_changed_is_closed(world):
    backend = world.backend
    copy = backend.open_copy()
    copy.connection.row_factory = sqlite3.Row  # a tool that reached past `world.db`
    connection = copy.connection
    backend.drop(copy)
    fresh = backend.open_copy()
    assert fresh.connection is not connection
    assert fresh.connection.row_factory is None
    backend.drop(fresh)


def test_total_changes_is_refused_to_tools_and_checks(world):
    backend = world.backend
    copy = backend.open_copy()
    with pytest.raises(sqlite3.DatabaseError, match="not authorized"):
        copy.value("SELECT total_changes()")
    assert copy.value("SELECT changes() + last_insert_rowid()") == 0  # these start at 0
    copy.lock_readonly()
    with pytest.raises(QueryRefused, match="not authorized to use function: total_changes"):
        copy.run_limited(1.0, "SELECT total_changes()", ())
    backend.drop(copy)


def test_a_dropped_copy_cannot_reach_the_task_run_that_uses_its_connection_next(world):
    backend = world.backend
    copy = backend.open_copy()
    backend.drop(copy)
    backend.drop(copy)  # twice: nothing more happens
    following = backend.open_copy()
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        copy.execute("DELETE FROM people")
    assert following.value("SELECT count(*) FROM people") == 200
    backend.drop(following)


def test_no_more_idle_copies_are_kept_than_the_bound(world, monkeypatch):
    pool = CopyPool(world.snapshot)
    monkeypatch.setattr(pool, "keep", 2)
    taken = [pool.take() for _ in range(3)]
    for connection in taken:
        pool.give_back(connection, settled=True)
    assert [pool.take() for _ in range(2)] == taken[1::-1]
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        taken[2].execute("SELECT 1")
    pool.close()


def test_copies_idle_in_a_parent_process_are_not_used_in_a_child(world, monkeypatch):
    pool = CopyPool(world.snapshot)
    connection = pool.take()
    pool.give_back(connection, settled=True)
    monkeypatch.setattr(pool, "_pid", -1)  # as a forked worker sees its parent's pool
    assert pool.take() is not connection
    pool.close()


def test_the_limits_a_task_run_changed_are_set_back(world):
    backend = world.backend
    copy = backend.open_copy()
    limits = (sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, sqlite3.SQLITE_LIMIT_LENGTH)
    defaults = [copy.connection.getlimit(limit) for limit in limits]
    copy.connection.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 3)  # a tool past `world.db`
    copy.lock_readonly()  # caps a value's length
    connection = copy.connection
    backend.drop(copy)
    again = backend.open_copy()
    assert again.connection is connection
    assert [again.connection.getlimit(limit) for limit in limits] == defaults
    backend.drop(again)
