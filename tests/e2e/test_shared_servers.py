"""Two `assay serve` processes on one PostgreSQL store serve the same runs: a task run started on
one is continued and completed on the other, a stale copy never acts, and the benchmark run
finalises once, whichever server completes its last task run."""

from __future__ import annotations

import httpx
import pytest
from apikit import KEY, Server, bearer

from assay.runs.store import open_store

OPERATOR = bearer(KEY)


@pytest.fixture(scope="module")
def two_servers(postgres_store, tmp_path_factory):
    home = tmp_path_factory.mktemp("servers")
    servers = [Server(postgres_store, home / name).start() for name in ("a", "b")]
    try:
        yield servers
    finally:
        for server in servers:
            server.stop()


def call(server, method, path, token, **body):
    response = httpx.request(
        method, server.url + path, headers=token, json=body or None, timeout=30
    )
    return response.status_code, response.json()


def test_a_task_run_moves_between_servers_and_the_run_finalises_once(two_servers, postgres_store):
    a, b = two_servers
    status, run = call(
        a,
        "POST",
        "/v1/benchmark-runs",
        OPERATOR,
        benchmark="shop@1",
        tasks=["update-address", "refund-double-charge"],
    )
    assert status == 201
    token = bearer(run["bearer_token"])
    first, second = run["task_runs"]

    # started on A, acted on B, then on A again (A's copy is behind: it rebuilds), completed on B
    assert call(a, "POST", first["start_url"], token)[0] == 200
    address = {"order_id": "B-2003", "address": "18 Mill Lane, York"}
    status, seen = call(
        b,
        "POST",
        first["act_url"],
        token,
        call={"tool": "find_order", "args": {"order_id": "B-2003"}},
    )
    assert status == 200 and seen["turn"] == 1
    status, seen = call(
        a, "POST", first["act_url"], token, call={"tool": "update_address", "args": address}
    )
    assert status == 200 and seen["turn"] == 2
    assert call(a, "POST", first["start_url"], token)[0] == 409  # already started, on either
    status, done = call(b, "POST", first["complete_url"], token, output="Moved.")
    assert (status, done["outcome"]) == (200, "verified")
    assert call(a, "POST", first["complete_url"], token, output="again")[0] == 409

    # the last task run finishes on A: the run completes once, with its aggregate
    assert call(b, "POST", second["start_url"], token)[0] == 200
    status, done = call(a, "POST", second["complete_url"], token, output="nothing")
    assert (status, done["outcome"]) == (200, "not_achieved")
    for server in (a, b):
        status, shown = call(server, "GET", f"/v1/benchmark-runs/{run['benchmark_run_id']}", token)
        assert shown["phase"] == "completed" and shown["aggregate"]["scored"] == 2
        assert shown["aggregate"]["outcomes"]["verified"] == 1
    with open_store(postgres_store) as store:
        record = store.benchmark_run(run["benchmark_run_id"])
        assert record.finished == 2 and record.phase == "completed"
        [first_result] = store.results(record.id, task="update-address", trajectories_too=True)
        assert [
            step["action"]["call"]["tool"] for step in first_result.trajectory["steps"][:2]
        ] == [
            "find_order",
            "update_address",
        ]


def test_a_copy_that_fell_behind_is_rebuilt_not_trusted(two_servers):
    a, b = two_servers
    _, run = call(
        a, "POST", "/v1/benchmark-runs", OPERATOR, benchmark="shop@1", tasks=["update-address"]
    )
    token = bearer(run["bearer_token"])
    [task_run] = run["task_runs"]
    call(a, "POST", task_run["start_url"], token)
    move = {"tool": "update_address", "args": {"order_id": "B-2003", "address": "1 A St"}}
    for server in (a, b, a, b):  # each server's copy is behind the other's every time
        status, seen = call(server, "POST", task_run["act_url"], token, call=move)
        assert status == 200
    assert seen["turn"] == 4
    status, done = call(a, "POST", task_run["complete_url"], token, output="done")
    assert done["summary"]["turns"] == 5  # the four actions, and finishing
