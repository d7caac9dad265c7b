"""Statements on the driver's own connection (`assay.runs.store.driver`), on both backends: the
same parameters SQLAlchemy would bind, one transaction each, nothing left behind by a failure."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import Text, bindparam, cast, func, insert, select, text, update
from storekit import create_run

from assay.runs.store.driver import Driver, json_dumped
from assay.runs.store.tables import task_run_actions


@pytest.fixture
def planned(store, results) -> list[str]:
    """Ids of task runs planned in the store (an action belongs to one)."""
    create_run(store, results[:3])
    return [result.id for result in results[:3]]


def test_a_json_column_is_stored_as_sqlalchemy_reads_it_back(store, planned):
    driver = Driver(store.engine)
    add = driver.prepare(insert(task_run_actions), ["task_run_id", "seq", "action"])
    action = {"call": {"tool": "rename", "args": {"name": "één", "n": [1, 2.5, None]}}}
    driver.one(add, {"task_run_id": planned[0], "seq": 0, "action": action})
    with store.engine.connect() as connection:
        stored = connection.execute(
            select(task_run_actions.c.action).where(task_run_actions.c.task_run_id == planned[0])
        ).scalar_one()
    assert stored == action
    driver.close()


def test_a_literal_in_the_statement_is_bound_and_a_read_gives_its_row(store, planned):
    driver = Driver(store.engine)
    add = driver.prepare(insert(task_run_actions), ["task_run_id", "seq", "action"])
    for seq in range(3):
        driver.one(add, {"task_run_id": planned[1], "seq": seq, "action": {"n": seq}})
    renumber = driver.prepare(
        update(task_run_actions)
        .where(task_run_actions.c.task_run_id == bindparam("row_id"), task_run_actions.c.seq == 1)
        .values(seq=7)
    )
    with driver.transaction() as execute:
        assert execute(renumber, {"row_id": planned[1]}).rowcount == 1
    read = driver.prepare(
        select(task_run_actions.c.seq)
        .where(task_run_actions.c.task_run_id == bindparam("row_id"))
        .order_by(task_run_actions.c.seq.desc())
    )
    assert driver.one(read, {"row_id": planned[1]}) == (7,)
    assert driver.one(read, {"row_id": planned[0] + "x"}) is None
    driver.close()


def test_a_failed_transaction_leaves_nothing_and_the_connection_goes_on(store, planned):
    driver = Driver(store.engine)
    add = driver.prepare(insert(task_run_actions), ["task_run_id", "seq", "action"])
    row = {"task_run_id": planned[2], "seq": 0, "action": {}}
    with pytest.raises(driver.integrity_error), driver.transaction() as execute:
        execute(add, [row, {**row, "seq": 1}])
        execute(add, row)  # the same key again
    driver.one(add, {**row, "seq": 5})
    with pytest.raises(driver.integrity_error):
        driver.one(add, {**row, "seq": 5})
    driver.one(add, {**row, "seq": 6})
    with store.engine.connect() as connection:
        kept = connection.execute(
            select(task_run_actions.c.seq).where(task_run_actions.c.task_run_id == planned[2])
        ).all()
    assert sorted(seq for (seq,) in kept) == [5, 6]
    driver.close()


@pytest.mark.parametrize("store", ["postgresql"], indirect=True)  # a server's connection is lost
def test_a_lost_connection_is_given_up_and_the_next_statement_opens_another(store, planned):
    driver = Driver(store.engine)
    read = driver.prepare(select(func.count()).where(task_run_actions.c.seq == bindparam("seq")))
    assert driver.one(read, {"seq": 0}) is not None
    backend = driver._connection.info.backend_pid
    with store.engine.begin() as connection:
        connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": backend})
    with pytest.raises(driver.engine.dialect.loaded_dbapi.OperationalError):
        driver.one(read, {"seq": 0})
    assert driver.one(read, {"seq": 0}) is not None
    assert driver._connection.info.backend_pid != backend
    driver.close()


def test_json_is_stored_as_the_text_of_json_dumps(store, planned):
    """The driver gives an object or a list to `json.dumps` itself where SQLAlchemy's processing
    would (SQLite's JSON columns), and SQLAlchemy's own processing elsewhere: the same text both
    ways, which `assay run --json` splices as it is."""
    driver = Driver(store.engine)
    add = driver.prepare(insert(task_run_actions), ["task_run_id", "seq", "action"])
    values = [
        {"call": {"tool": "rename", "args": {"name": 'één \u2028 "q"', "n": [1, 2.5, None, True]}}},
        [{"nested": [[], {}]}, 1e100, -0.0],
        {"say": ""},
    ]
    for seq, value in enumerate(values):
        driver.one(add, {"task_run_id": planned[0], "seq": seq, "action": value})
    with store.engine.connect() as connection:
        stored = connection.execute(
            select(cast(task_run_actions.c.action, Text))
            .where(task_run_actions.c.task_run_id == planned[0])
            .order_by(task_run_actions.c.seq)
        ).scalars()
        assert list(stored) == [json.dumps(value) for value in values]
    on_sqlite = store.engine.dialect.name == "sqlite"
    assert json_dumped(task_run_actions.c.action.type, store.engine.dialect) == on_sqlite
    driver.close()
