"""The state diff: rows added, changed (with the columns) and removed, capped, and the requests."""

from __future__ import annotations

import sqlite3

from assay.world import diff
from assay.world.database import SqliteDatabase
from assay.world.diff import ROWS_SHOWN, VALUE_CHARS, state_changes, table_changes
from assay.world.reserved import INSERT_REQUEST, SQLITE_DDL
from assay.world.starting import StartingState


def test_rows_are_matched_by_id_and_changed_columns_are_named():
    before = [{"id": 1, "a": "x", "b": 1}, {"id": 2, "a": "y", "b": 2}, {"id": 3, "a": "z", "b": 3}]
    after = [{"id": 1, "a": "x", "b": 1}, {"id": 2, "a": "Y", "b": 2}, {"id": 4, "a": "w", "b": 4}]
    found = table_changes("t", before, after)
    assert found.key == "id"
    assert found.added == [{"id": 4, "a": "w", "b": 4}]
    assert found.removed == [{"id": 3, "a": "z", "b": 3}]
    assert [(row.key, row.columns) for row in found.changed] == [(2, {"a": ("y", "Y")})]
    assert found.left_out == 0


def test_an_unchanged_table_has_no_entry():
    rows = [{"id": 1, "a": "x"}]
    assert table_changes("t", rows, list(rows)) is None


def test_a_table_without_a_unique_key_is_compared_row_by_row():
    before = [{"k": 1, "v": "a"}, {"k": 1, "v": "b"}]
    after = [{"k": 1, "v": "a"}, {"k": 1, "v": "c"}]
    found = table_changes("t", before, after)
    assert found.key is None
    assert (found.added, found.removed, found.changed) == (
        [{"k": 1, "v": "c"}],
        [{"k": 1, "v": "b"}],
        [],
    )


def test_many_rows_are_capped_with_a_count_of_what_was_left_out():
    after = [{"id": n, "v": "x" * (VALUE_CHARS + 5)} for n in range(ROWS_SHOWN + 7)]
    found = table_changes("t", [], after)
    assert len(found.added) == ROWS_SHOWN
    assert found.left_out == 7
    assert found.added[0]["v"].endswith(f"… ({VALUE_CHARS + 5} characters)")


def test_the_world_s_tables_and_its_service_requests():
    initial, final = _database(), _database()
    final.execute("UPDATE orders SET address = 'new' WHERE id = 'A-1'")
    final.execute("INSERT INTO orders VALUES ('A-3', 'third')")
    final.execute(
        INSERT_REQUEST, 1, "hl7", "send", '{"message": "MSH|a\\rPID|b"}', None, "ok", 2, "t", None
    )
    changes = state_changes(
        StartingState(initial), final, {"orders": ("id", "address"), "sandbox_requests": ()}
    )
    assert [table.table for table in changes.tables] == ["orders"]
    orders = changes.tables[0]
    assert orders.added == [{"id": "A-3", "address": "third"}]
    assert orders.changed[0].columns == {"address": ("first", "new")}
    assert [(r.service, r.operation, r.turn) for r in changes.requests] == [("hl7", "send", 2)]
    assert changes.requests[0].payload == {"message": "MSH|a\rPID|b"}


def _database() -> SqliteDatabase:
    db = SqliteDatabase(sqlite3.connect(":memory:", isolation_level=None))
    db.run_script(SQLITE_DDL)
    db.execute("CREATE TABLE orders (id TEXT PRIMARY KEY, address TEXT)")
    db.execute("INSERT INTO orders VALUES ('A-1', 'first'), ('A-2', 'second')")
    return db


def test_a_fhir_resource_is_keyed_by_type_and_id_and_diffed_by_element():
    before = [
        {"resource_type": "Patient", "id": "p1", "resource": '{"id": "p1", "gender": "male"}'},
        {"resource_type": "Encounter", "id": "p1", "resource": '{"id": "p1", "status": "planned"}'},
    ]
    after = [
        {"resource_type": "Patient", "id": "p1", "resource": '{"id": "p1", "gender": "male"}'},
        {
            "resource_type": "Encounter",
            "id": "p1",
            "resource": '{"id": "p1", "status": "finished", "period": {"end": "2026"}}',
        },
    ]
    found = table_changes("sandbox_fhir_resources", before, after)
    assert [(row.key, row.columns) for row in found.changed] == [
        (
            "Encounter/p1",
            {
                "resource.status": ("planned", "finished"),
                "resource.period": (None, '{"end": "2026"}'),
            },
        )
    ]


def test_the_starting_state_is_read_once_for_every_task_run_after():
    initial = _database()
    starting = StartingState(initial)
    read: list[str] = []
    initial.connection.set_trace_callback(read.append)
    tables = {"orders": ("id", "address"), "sandbox_requests": ()}
    for address in ("new", "newer"):
        final = _database()
        final.execute("UPDATE orders SET address = ? WHERE id = 'A-1'", address)
        changes = state_changes(starting, final, tables)
        assert changes.tables[0].changed[0].columns == {"address": ("first", address)}
    assert read == ['SELECT count(*) FROM "orders"', 'SELECT * FROM "orders"']  # by the first


def test_a_table_past_the_cap_is_named_with_its_rows_not_compared(monkeypatch):
    monkeypatch.setattr(diff, "ROWS_COMPARED", 3)
    tables = {"orders": ("id", "address")}
    grown = _database()
    grown.execute("INSERT INTO orders VALUES ('A-3', 'x'), ('A-4', 'y')")  # 2 at the start, 4 now
    found = state_changes(StartingState(_database()), grown, tables).tables[0]
    assert (found.not_compared, found.added) == ("4 rows: too many", [])
    big = _database()
    big.execute("INSERT INTO orders VALUES ('A-3', 'x'), ('A-4', 'y')")
    shrunk = _database()
    shrunk.execute("DELETE FROM orders")  # 4 at the start, none now
    found = state_changes(StartingState(big), shrunk, tables).tables[0]
    assert found.not_compared == "4 rows: too many"
    assert state_changes(StartingState(_database()), _database(), tables).tables == []


def test_a_table_the_copy_cannot_read_is_named_with_why():
    final = _database()
    final.execute("DROP TABLE orders")
    found = state_changes(StartingState(_database()), final, {"orders": ("id", "address")})
    assert found.tables[0].not_compared == "no such table: orders"
