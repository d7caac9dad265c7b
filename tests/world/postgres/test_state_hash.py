"""On PostgreSQL too, the final-state hash brought up to date from the rows a task run changed
equals the hash of every table read whole, whatever mix of inserts, updates, deletes, replaces,
cascades and truncates made the change."""

from __future__ import annotations

from contextlib import suppress

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from worldkit import write_world

from assay.world import load_world
from assay.world.digest import combine
from assay.world.postgres.template import table_digest

SCHEMA = """
CREATE TABLE people (id INTEGER PRIMARY KEY, email TEXT UNIQUE, score REAL, photo BLOB);
CREATE TABLE tags (name TEXT PRIMARY KEY, hits INTEGER);
CREATE TABLE visits (person INTEGER REFERENCES people(id) ON DELETE CASCADE, note TEXT);
CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL, at TEXT);
"""
SEED = """
INSERT INTO people VALUES (1, 'a@x', 1.5, NULL), (2, 'b@x', NULL, NULL), (3, 'c@x', -2.0, NULL);
INSERT INTO tags VALUES ('red', 1), ('blue', 2);
INSERT INTO visits VALUES (1, 'first'), (1, 'again'), (2, 'once');
INSERT INTO notes (text) VALUES ('first'), ('second');
"""

ids = st.integers(min_value=1, max_value=6)
emails = st.sampled_from(["a@x", "b@x", "c@x", "d@x", None])
scores = st.one_of(st.none(), st.floats(allow_nan=False, width=32), st.integers(-3, 3))
texts = st.text(alphabet="abé'\n", max_size=3)
STATEMENTS = st.one_of(
    st.tuples(
        st.just("INSERT INTO people VALUES (?, ?, ?, ?)"),
        st.tuples(ids, emails, scores, st.binary(max_size=2)),
    ),
    st.tuples(
        st.just("INSERT OR REPLACE INTO tags VALUES (?, ?)"), st.tuples(texts, st.integers(-5, 5))
    ),
    st.tuples(st.just("UPDATE people SET email = ? WHERE id = ?"), st.tuples(emails, ids)),
    st.tuples(st.just("UPDATE people SET id = ? WHERE id = ?"), st.tuples(ids, ids)),
    st.tuples(st.just("UPDATE people SET score = score + 1 WHERE id >= ?"), st.tuples(ids)),
    st.tuples(st.just("DELETE FROM people WHERE id = ?"), st.tuples(ids)),  # cascades to visits
    st.tuples(st.just("DELETE FROM visits"), st.just(())),
    st.tuples(st.just("INSERT INTO visits VALUES (?, ?)"), st.tuples(ids, texts)),
    st.tuples(st.just("INSERT INTO notes (text) VALUES (?)"), st.tuples(texts)),
    st.tuples(st.just("DELETE FROM tags WHERE hits > ?"), st.tuples(st.integers(0, 3))),
    st.tuples(st.just("TRUNCATE notes"), st.just(())),
)


@pytest.fixture(scope="module")
def world(tmp_path_factory, postgres_url: str):
    root = write_world(tmp_path_factory.mktemp("hashed"), schema=SCHEMA, seed=SEED)
    on_postgres = load_world(root, postgres_url)
    yield on_postgres
    on_postgres.close()


def whole(copy) -> str:
    """The hash read from every table of the copy, the definition the update must equal."""
    connection = copy.reader.connection if copy.reader is not None else copy.connection
    tables = copy.source.snapshot.digests
    return combine({table: table_digest(connection, table) for table in tables})


def play(copy, statements) -> None:
    for text, params in statements:
        with suppress(copy.errors):  # a refused statement changes nothing
            if text.startswith("TRUNCATE"):  # not SQLite: straight to the server
                copy.connection.execute(text)
            else:
                copy.execute(text, *params)


# Each example makes a database of its own (CREATE DATABASE … TEMPLATE, ~0.2 s).
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(statements=st.lists(STATEMENTS, max_size=10), locked=st.booleans())
def test_the_updated_hash_equals_the_whole_hash(world, statements, locked):
    copy = world.backend.open_copy()
    try:
        play(copy, statements)
        if locked:
            copy.lock_readonly()  # as when a task run is graded
        assert copy.state_hash() == whole(copy) == copy.state_hash(full=True)
    finally:
        copy.close()


def test_the_change_tables_are_not_state(world):
    template = world.backend.snapshot
    assert set(template.deltas) == set(template.digests)
    assert not any(
        table.startswith(("sandbox_delta", "sandbox_changed")) for table in template.digests
    )
    copy = world.backend.open_copy()
    try:
        start = copy.state_hash()
        copy.execute("UPDATE people SET email = 'z@x' WHERE id = 2")
        assert copy.state_hash() != start
        copy.execute("UPDATE people SET email = 'b@x' WHERE id = 2")
        assert copy.state_hash() == start  # a change undone hashes as the start
        assert copy.value("SELECT count(*) FROM sandbox_changed") == 1
    finally:
        copy.close()


def test_a_copy_gives_every_row_for_a_negative_limit(world):
    copy = world.backend.open_copy()
    try:
        names, rows = copy.table_rows("notes", -1)
        assert names[:2] == ["id", "text"] and len(rows) == 2
        assert copy.table_rows("notes", 1)[1] == rows[:1]
    finally:
        copy.close()


def test_the_check_role_cannot_write_the_deltas(world):
    copy = world.backend.open_copy()
    try:
        copy.lock_readonly()
        refused = (psycopg.errors.InsufficientPrivilege, psycopg.errors.ReadOnlySqlTransaction)
        with pytest.raises(refused):
            copy.reader.connection.execute("DELETE FROM sandbox_delta_0")
    finally:
        copy.close()
