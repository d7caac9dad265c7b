"""Reset is exact: every task run starts from the same state, built once per version of the data."""

from __future__ import annotations

import os

from worldkit import DESK_SEED, write_world

from assay.world import load_world
from assay.world.snapshot import snapshot_key


def test_every_reset_starts_from_the_snapshot(tmp_path):
    world = load_world(write_world(tmp_path))
    first = world.reset()
    first.db.execute("INSERT INTO notes (text) VALUES ('leaked?')")
    first.db.execute("DELETE FROM numbers")
    second = world.reset()
    assert second.db.value("SELECT count(*) FROM notes") == 2
    assert second.db.value("SELECT count(*) FROM numbers") == 2
    assert first.db.value("SELECT count(*) FROM notes") == 3


def test_reserved_tables_exist_and_start_empty(tmp_path):
    live = load_world(write_world(tmp_path)).reset()
    assert live.db.value("SELECT count(*) FROM sandbox_requests") == 0
    assert live.db.value("SELECT count(*) FROM sandbox_actions") == 0
    columns = [row["name"] for row in live.db.rows("PRAGMA table_info(sandbox_requests)")]
    assert columns[:8] == [
        "id",
        "service",
        "operation",
        "payload",
        "response",
        "status",
        "turn",
        "at",
    ]


def test_snapshot_key_follows_the_data_files(tmp_path):
    root = write_world(tmp_path)
    world = load_world(root)
    before = snapshot_key(root, world.spec)
    assert snapshot_key(root, world.spec) == before
    (root / "seed.sql").write_text(DESK_SEED + "INSERT INTO notes (text) VALUES ('third');")
    after = snapshot_key(root, world.spec)
    assert after != before
    assert load_world(root).reset().db.value("SELECT count(*) FROM notes") == 3


def test_snapshot_is_cached_on_disk(tmp_path, assay_home):
    world = load_world(write_world(tmp_path / "w"))
    key = world.snapshot.key
    cached = [name for name in os.listdir(assay_home / "snapshots") if key[:20] in name]
    assert sorted(cached) == [f"desk-{key[:20]}.json", f"desk-{key[:20]}.sqlite"]


def test_clock_is_the_same_on_every_reset_and_moves_by_turn(tmp_path):
    world = load_world(write_world(tmp_path))
    one, two = world.reset(), world.reset()
    assert one.now() == two.now()
    assert one.now().isoformat() == "2026-03-02T09:00:00+00:00"
    one.clock.advance()
    assert (one.now() - two.now()).total_seconds() == 60


def test_state_hash_is_a_content_hash(tmp_path):
    world = load_world(write_world(tmp_path))
    untouched, changed, undone = world.reset(), world.reset(), world.reset()
    changed.db.execute("INSERT INTO notes (text) VALUES ('x')")
    undone.db.execute("INSERT INTO notes (text) VALUES ('x')")
    undone.db.execute("DELETE FROM notes WHERE text = 'x'")
    assert untouched.db.state_hash() == world.reset().db.state_hash()
    assert changed.db.state_hash() != untouched.db.state_hash()
    assert undone.db.state_hash() == untouched.db.state_hash()


def test_csv_and_jsonl_seeds(shop):
    live = shop.world.reset()
    assert live.db.value("SELECT name FROM customers WHERE id = 'C-1'") == "Dana Reyes"
    assert (
        live.db.value("SELECT tracking FROM shipments WHERE order_id = 'D-4001'") == "PW-87001-CRK"
    )
