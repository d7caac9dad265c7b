"""Reset is exact: every task run starts from the same state, built once per version of the data."""

from __future__ import annotations

import os

import pytest
from worldkit import DESK_SEED, write_world

from assay.world import load_world
from assay.world.snapshot import snapshot_key


@pytest.fixture
def desk(tmp_path, open_world):
    """The desk world on the backend under test."""
    return open_world(write_world(tmp_path)).world


def test_every_reset_starts_from_the_snapshot(desk, reset):
    first = reset(desk)
    first.db.execute("INSERT INTO notes (text) VALUES ('leaked?')")
    first.db.execute("DELETE FROM numbers")
    second = reset(desk)
    assert second.db.value("SELECT count(*) FROM notes") == 2
    assert second.db.value("SELECT count(*) FROM numbers") == 2
    assert first.db.value("SELECT count(*) FROM notes") == 3


def test_reserved_tables_exist_and_start_empty(desk, reset):
    live = reset(desk)
    assert live.db.value("SELECT count(*) FROM sandbox_requests") == 0
    assert live.db.value("SELECT count(*) FROM sandbox_actions") == 0
    columns, _ = live.db.fetch("SELECT * FROM sandbox_requests", ())
    assert columns == [
        "id",
        "service",
        "operation",
        "payload",
        "response",
        "status",
        "turn",
        "at",
        "duplicate_of",
    ]
    columns, _ = live.db.fetch("SELECT * FROM sandbox_actions", ())
    assert columns == ["id", "turn", "kind", "tool", "args", "status", "operation_id"]


# SQLite only: the snapshot key and file cache (PostgreSQL's template per key: postgres/test_template.py).
def test_snapshot_key_follows_the_data_files(tmp_path):
    root = write_world(tmp_path)
    world = load_world(root)
    before = snapshot_key(root, world.spec)
    assert snapshot_key(root, world.spec) == before
    (root / "seed.sql").write_text(DESK_SEED + "INSERT INTO notes (text) VALUES ('third');")
    after = snapshot_key(root, world.spec)
    assert after != before
    assert load_world(root).reset().db.value("SELECT count(*) FROM notes") == 3


# SQLite only: the snapshot's file cache.
def test_snapshot_is_cached_on_disk(tmp_path, assay_home):
    world = load_world(write_world(tmp_path / "w"))
    key = world.snapshot.key
    cached = [name for name in os.listdir(assay_home / "snapshots") if key[:20] in name]
    assert sorted(cached) == [f"desk-{key[:20]}.json", f"desk-{key[:20]}.sqlite"]


def test_clock_is_the_same_on_every_reset_and_moves_by_turn(desk, reset):
    one, two = reset(desk), reset(desk)
    assert one.now() == two.now()
    assert one.now().isoformat() == "2026-03-02T09:00:00+00:00"
    one.clock.advance()
    assert (one.now() - two.now()).total_seconds() == 60


def test_state_hash_is_a_content_hash(desk, reset):
    untouched, changed, undone = reset(desk), reset(desk), reset(desk)
    changed.db.execute("INSERT INTO notes (text) VALUES ('x')")
    undone.db.execute("INSERT INTO notes (text) VALUES ('x')")
    undone.db.execute("DELETE FROM notes WHERE text = 'x'")
    assert untouched.db.state_hash() == reset(desk).db.state_hash()
    assert changed.db.state_hash() != untouched.db.state_hash()
    assert undone.db.state_hash() == untouched.db.state_hash()


def test_csv_and_jsonl_seeds(any_shop, reset):
    live = reset(any_shop.world)
    assert live.db.value("SELECT name FROM customers WHERE id = 'C-1'") == "Dana Reyes"
    assert (
        live.db.value("SELECT tracking FROM shipments WHERE order_id = 'D-4001'") == "PW-87001-CRK"
    )
