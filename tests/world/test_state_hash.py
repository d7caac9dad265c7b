"""The final-state hash brought up to date from the rows a task run changed equals the hash of
every table read whole, whatever mix of inserts, updates, deletes and replaces made the change; so
does the state diff read from the rows the log names."""

from __future__ import annotations

import sqlite3
import threading
from contextlib import suppress

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from worldkit import write_world

from assay.world import load_world
from assay.world.database import SqliteCopy, SqliteDatabase
from assay.world.diff import state_changes
from assay.world.digest import combine, digest_rows, updated
from assay.world.snapshot import table_digest
from assay.world.starting import StartingState

SCHEMA = """
CREATE TABLE people (id INTEGER PRIMARY KEY, email TEXT UNIQUE, score REAL, photo BLOB);
CREATE TABLE tags (name TEXT PRIMARY KEY, hits INTEGER) WITHOUT ROWID;
CREATE TABLE visits (person INTEGER REFERENCES people(id) ON DELETE CASCADE, note TEXT);
CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL, at TEXT);
CREATE TABLE numbers (name TEXT PRIMARY KEY, value TEXT);
"""
SEED = """
INSERT INTO people VALUES (1, 'a@x', 1.5, x'00ff'), (2, 'b@x', NULL, NULL), (3, 'c@x', -2.0, x'');
INSERT INTO tags VALUES ('red', 1), ('blue', 2);
INSERT INTO visits VALUES (1, 'first'), (1, 'again'), (2, 'once');
INSERT INTO notes (text) VALUES ('first'), ('second');
INSERT INTO numbers VALUES ('ten', '10'), ('nine', '9');
WITH RECURSIVE n(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
INSERT INTO people (id, email, score) SELECT i, 'p' || i || '@x', i / 7.0 FROM n;
WITH RECURSIVE n(i) AS (SELECT 10 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
INSERT INTO visits SELECT i % 7, 'v' || i FROM n;
"""

ids = st.one_of(st.integers(min_value=1, max_value=6), st.integers(min_value=8, max_value=210))
emails = st.sampled_from(["a@x", "b@x", "c@x", "d@x", None])
scores = st.one_of(st.none(), st.floats(allow_nan=False, width=32), st.integers(-3, 3))
texts = st.text(max_size=3)
STATEMENTS = st.one_of(
    st.tuples(
        st.just("INSERT INTO people VALUES (?, ?, ?, ?)"),
        st.tuples(ids, emails, scores, st.binary(max_size=2)),
    ),
    st.tuples(
        st.just("INSERT OR REPLACE INTO people (id, email) VALUES (?, ?)"), st.tuples(ids, emails)
    ),
    st.tuples(
        st.just("UPDATE OR REPLACE people SET email = ? WHERE id = ?"), st.tuples(emails, ids)
    ),
    st.tuples(st.just("UPDATE people SET id = ? WHERE id = ?"), st.tuples(ids, ids)),
    st.tuples(st.just("UPDATE people SET score = score + 1 WHERE id >= ?"), st.tuples(ids)),
    st.tuples(st.just("DELETE FROM people WHERE id = ?"), st.tuples(ids)),
    st.tuples(st.just("DELETE FROM visits"), st.just(())),
    st.tuples(st.just("INSERT INTO visits VALUES (?, ?)"), st.tuples(ids, texts)),
    st.tuples(
        st.just("INSERT OR REPLACE INTO tags VALUES (?, ?)"), st.tuples(texts, st.integers(-5, 5))
    ),
    st.tuples(st.just("DELETE FROM tags WHERE hits > ?"), st.tuples(st.integers(0, 3))),
    st.tuples(st.just("PRAGMA foreign_keys = ON"), st.just(())),
)


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory):
    root = write_world(tmp_path_factory.mktemp("hashed"), schema=SCHEMA, seed=SEED)
    return load_world(root).snapshot


def whole(copy: SqliteCopy) -> str:
    """The hash read from every table of the copy, the definition the update must equal."""
    tables = copy.snapshot.digests
    return combine({table: table_digest(copy.connection, table) for table in tables})


def play(copy: SqliteCopy, statements) -> None:
    for sql, params in statements:
        with suppress(sqlite3.IntegrityError):  # a refused statement changes nothing
            copy.execute(sql, *params)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(statements=st.lists(STATEMENTS, max_size=12), locked=st.booleans())
def test_the_updated_hash_equals_the_whole_hash(snapshot, statements, locked):
    copy = SqliteCopy(snapshot)
    try:
        play(copy, statements)
        if locked:
            copy.lock_readonly()  # as when a task run is graded
        assert copy.state_hash() == whole(copy) == copy.state_hash(full=True)
    finally:
        copy.close()


def test_large_rowid_tables_are_tracked_and_others_read_whole(snapshot):
    assert snapshot.tracked == {"people", "visits"}  # tags: WITHOUT ROWID; the rest: small
    assert "sandbox_changes" not in snapshot.digests  # the log is not part of the state


def test_a_change_undone_hashes_as_the_start(snapshot):
    copy = SqliteCopy(snapshot)
    start = copy.state_hash()
    copy.execute("UPDATE people SET email = 'z@x' WHERE id = 2")
    changed = copy.state_hash()
    copy.execute("UPDATE people SET email = 'b@x' WHERE id = 2")
    assert changed != start
    assert copy.state_hash() == start == whole(copy)
    copy.close()


def test_a_changed_schema_falls_back_to_reading_tables_whole(snapshot):
    copy = SqliteCopy(snapshot)
    copy.execute("DROP TRIGGER sandbox_changes_0_u")  # a tool that reshapes the database
    copy.execute("UPDATE people SET email = 'edited' WHERE id = 1")
    copy.execute("UPDATE visits SET note = 'edited' WHERE person = 1")
    assert copy.reshaped
    assert copy.state_hash() == whole(copy)
    copy.close()


def test_a_world_with_triggers_of_its_own_is_read_whole(tmp_path):
    schema = (
        SCHEMA
        + "CREATE TRIGGER stamp AFTER INSERT ON notes BEGIN UPDATE notes SET at = 'now' WHERE id = NEW.id; END;"
    )
    snapshot = load_world(write_world(tmp_path, schema=schema, seed=SEED)).snapshot
    assert snapshot.tracked == frozenset()
    copy = SqliteCopy(snapshot)
    copy.execute("INSERT INTO notes (text) VALUES ('third')")
    assert copy.value("SELECT at FROM notes WHERE text = 'third'") == "now"
    assert copy.state_hash() == whole(copy)
    copy.close()


@given(
    rows=st.lists(
        st.tuples(st.integers(), st.text(max_size=2), st.none() | st.floats(allow_nan=False)),
        max_size=8,
    ),
    order=st.randoms(),
    cut=st.integers(0, 8),
    added=st.lists(st.tuples(st.integers(), st.text(max_size=2), st.none()), max_size=4),
)
def test_a_digest_is_order_free_and_updates_as_a_multiset(rows, order, cut, added):
    shuffled = list(rows)
    order.shuffle(shuffled)
    assert digest_rows(rows) == digest_rows(shuffled)
    kept, removed = rows[cut:], rows[:cut]
    assert updated(digest_rows(rows), removed, added) == digest_rows(kept + added)


def test_a_world_of_small_tables_has_no_change_log(tmp_path):
    snapshot = load_world(write_world(tmp_path)).snapshot
    assert snapshot.tracked == frozenset()
    copy = SqliteCopy(snapshot)
    assert copy.value("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'sandbox_changes%'") == 0
    copy.execute("INSERT INTO notes (text) VALUES ('third')")
    assert copy.state_hash() == whole(copy)
    copy.close()


def test_a_tool_that_turns_recursive_triggers_off_is_read_whole(snapshot):
    copy = SqliteCopy(snapshot)
    copy.execute("PRAGMA Recursive_Triggers = OFF")  # REPLACE would then delete unlogged
    copy.execute("INSERT OR REPLACE INTO people (id, email) VALUES (99, 'a@x')")
    assert copy.reshaped
    assert copy.state_hash() == whole(copy)
    copy.close()


def test_a_small_table_read_whole_tells_a_number_from_its_equal_of_another_type(tmp_path):
    schema = "CREATE TABLE loose (id INTEGER PRIMARY KEY, v);"  # no affinity: 1 and 1.0 both stay
    seed = "INSERT INTO loose VALUES (1, 1.0), (2, 0.0), (3, 'same');"
    snapshot = load_world(write_world(tmp_path, schema=schema, seed=seed)).snapshot
    copy = SqliteCopy(snapshot)
    start = copy.state_hash()
    copy.execute("UPDATE loose SET v = 1 WHERE id = 1")  # 1 == 1.0, yet another value
    copy.execute("UPDATE loose SET v = -0.0 WHERE id = 2")
    assert copy.value("SELECT typeof(v) FROM loose WHERE id = 1") == "integer"
    assert copy.state_hash() == whole(copy) != start
    copy.execute("UPDATE loose SET v = 1.0 WHERE id = 1")
    copy.execute("UPDATE loose SET v = 0.0 WHERE id = 2")
    assert copy.state_hash() == start
    copy.close()


def test_a_copy_knows_a_table_nothing_wrote_is_as_it_started(tmp_path):
    request = (
        "INSERT INTO sandbox_requests (service, operation, payload, status, turn, at, duplicate_of)"
        " VALUES ('mail', 'send', '{}', 'OK', 0, 'now', 1)"
    )
    trigger = (
        "CREATE TABLE outbox (body TEXT);"
        f"CREATE TRIGGER echo AFTER INSERT ON outbox BEGIN {request}; END;"
    )
    snapshot = load_world(write_world(tmp_path, schema=SCHEMA + trigger, seed=SEED)).snapshot
    untouched, direct, through_trigger = (SqliteCopy(snapshot) for _ in range(3))
    untouched.execute("UPDATE people SET email = 'z@x' WHERE id = 2")
    untouched.value("SELECT count(*) FROM sandbox_requests")
    direct.execute(request.replace("sandbox_requests", "SANDBOX_Requests"))
    through_trigger.execute("INSERT INTO outbox VALUES ('hi')")  # its trigger writes the request
    assert not untouched.may_have_changed("sandbox_requests")
    assert untouched.may_have_changed("people")
    assert direct.may_have_changed("sandbox_requests")
    assert through_trigger.may_have_changed("sandbox_requests")
    assert through_trigger.value("SELECT count(*) FROM sandbox_requests") == 1
    reshaped = SqliteCopy(snapshot)
    reshaped.execute("CREATE TABLE extra (id INTEGER)")  # after a change of schema, anything may
    assert reshaped.may_have_changed("sandbox_requests")
    for copy in (untouched, direct, through_trigger, reshaped):
        copy.close()


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(statements=st.lists(STATEMENTS, max_size=12))
def test_the_diff_read_from_the_log_equals_the_diff_read_whole(snapshot, statements):
    initial = SqliteDatabase(snapshot.open_copy())
    copy = SqliteCopy(snapshot)
    try:
        play(copy, statements)
        copy.lock_readonly()  # as when a task run is graded
        tables = {table: snapshot.columns[table] for table in snapshot.digests}
        logged = state_changes(StartingState(initial), copy, tables)
        assert set(copy.changed_rows({"people": ("id",)})) == {"people"}  # the log was read
        assert logged == state_changes(
            StartingState(initial), SqliteDatabase(copy.connection), tables
        )
    finally:
        copy.close()
        initial.close()


def test_a_locked_copy_reads_its_change_log_once_for_the_diff_and_the_hash(snapshot):
    copy = SqliteCopy(snapshot)
    try:
        copy.execute("UPDATE people SET email = 'z@x' WHERE id = 2")
        copy.execute("INSERT INTO visits VALUES (2, 'later')")
        unlocked = copy.state_hash()
        copy.lock_readonly()
        statements: list[str] = []
        copy.connection.set_trace_callback(statements.append)
        changed = copy.changed_rows({"people": ("id",), "visits": ("person",)})
        assert copy.state_hash() == unlocked == whole(copy)
        assert [row["email"] for row in changed["people"].after] == ["z@x"]
        assert [row["note"] for row in changed["visits"].after] == ["later"]
        assert sum("FROM sandbox_changes" in sql for sql in statements) == 1
    finally:
        copy.close()


def test_the_starting_rows_are_read_from_copies_lent_in_turn_not_one_per_thread(snapshot):
    def hashed() -> None:
        copy = SqliteCopy(snapshot)
        copy.execute("UPDATE people SET score = 9 WHERE id = 3")
        copy.lock_readonly()
        assert copy.state_hash() == whole(copy)
        copy.close()

    for _ in range(4):  # each thread ends before the next begins: one copy serves them all
        thread = threading.Thread(target=hashed)
        thread.start()
        thread.join()
    assert snapshot._readers.idle == 1


def test_a_locked_copy_reads_a_table_it_wrote_once_for_the_diff_and_the_hash(snapshot):
    initial, copy = SqliteDatabase(snapshot.open_copy()), SqliteCopy(snapshot)
    try:
        copy.execute("UPDATE tags SET hits = 5 WHERE name = 'red'")  # two rows: no change log
        copy.lock_readonly()
        statements: list[str] = []
        copy.connection.set_trace_callback(statements.append)
        tables = {table: snapshot.columns[table] for table in snapshot.digests}
        changes = state_changes(StartingState(initial), copy, tables)
        hashed = copy.state_hash()
        assert sum('FROM "tags"' in sql for sql in statements) == 1
        assert [table.table for table in changes.tables] == ["tags"]
        assert hashed == whole(copy)
    finally:
        copy.close()
        initial.close()


def test_a_locked_copy_gives_every_row_for_a_negative_limit_read_or_kept(snapshot):
    copy = SqliteCopy(snapshot)
    try:
        copy.execute("UPDATE tags SET hits = 5 WHERE name = 'red'")
        copy.lock_readonly()
        every = copy.connection.execute('SELECT * FROM "tags"').fetchall()
        assert len(every) > 1
        assert copy.table_rows("tags", -1)[1] == every  # read, and kept
        assert copy.table_rows("tags", -1)[1] == every  # as kept
        assert copy.table_rows("tags", 1)[1] == every[:1]
    finally:
        copy.close()
