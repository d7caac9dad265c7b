"""Each task run as an MCP server over Streamable HTTP, under a real `assay serve` on a loopback
port, driven by the MCP SDK's own client."""

from __future__ import annotations

import anyio
import httpx
import pytest
from apikit import KEY, Server, bearer
from mcpkit import CLIENT, client_info, play, reference, shown, stored
from worldkit import SHOP

from assay.runs import open_benchmark

ACCEPT = {"Accept": "application/json, text/event-stream"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "curl", "version": "1"},
    },
}


@pytest.fixture(scope="module")
def server(tmp_path_factory, assay_home):
    store = tmp_path_factory.mktemp("mcp-http") / "records.db"
    running = Server(store, assay_home).start()
    yield running
    running.stop()


def new_run(server, **body):
    response = httpx.post(
        f"{server.url}/v1/benchmark-runs",
        json={"benchmark": "shop@1", **body},
        headers=bearer(KEY),
    )
    assert response.status_code == 201, response.text
    return response.json()


def connected(url, token, work):
    """Run `work(session)` in an MCP session at `url` that carries `token`."""
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        async with (
            httpx2.AsyncClient(headers=bearer(token)) as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(read, write, client_info=client_info()) as session,
        ):
            await session.initialize()
            return await work(session)

    return anyio.run(main)


def test_every_shop_task_over_http_gets_the_reference_outcome_and_state(server):
    run = new_run(server)
    benchmark = open_benchmark(SHOP)
    played = {}
    for task_run in run["task_runs"]:
        assert task_run["mcp_url"] == f"/v1/task-runs/{task_run['id']}/mcp"
        steps = benchmark.tasks[task_run["task_id"]].solution.steps

        async def work(session, steps=steps):
            return await play(session, steps)

        played[task_run["task_id"]] = connected(
            server.url + task_run["mcp_url"], run["bearer_token"], work
        )
    expected = reference()
    assert sorted(played) == sorted(expected)
    record, results = stored(server.store)
    assert (record.id, record.phase) == (run["benchmark_run_id"], "completed")
    got = {result.task_id: result for result in results}
    for task_id, want in expected.items():
        assert (got[task_id].outcome, got[task_id].final_state_hash) == (
            want["outcome"],
            want["final_state_hash"],
        ), task_id
        assert got[task_id].agent == f"mcp:{CLIENT}"
        assert shown(played[task_id][-1])["outcome"] == want["outcome"]
    held = shown(played["refund-changed-to-credit"][1])["events"]
    assert [held[0]["status"], held[1]["from"]] == ["HELD", "customer"]
    unknown = [shown(result)["events"][0] for result in played["refund-unknown-outcome"][:-1]]
    assert any(event.get("status") == "UNKNOWN" and event["operation_id"] for event in unknown)


def test_closing_the_session_before_finish_cancels_the_task_run(server):
    run = new_run(server, tasks=["refund-double-charge"])
    (task_run,) = run["task_runs"]

    async def work(session):
        return await session.call_tool("find_order", {"order_id": "A-1042"})

    found = connected(server.url + task_run["mcp_url"], run["bearer_token"], work)
    assert shown(found)["events"][0]["status"] == "OK"
    seen = httpx.get(
        f"{server.url}/v1/task-runs/{task_run['id']}", headers=bearer(run["bearer_token"])
    ).json()
    assert (seen["phase"], seen["status"]) == ("completed", "cancelled")
    assert seen["result"]["summary"]["termination"] == "cancelled"
    assert seen["result"]["checks"]  # graded all the same
    again = httpx.post(
        server.url + task_run["mcp_url"],
        json=INITIALIZE,
        headers={**bearer(run["bearer_token"]), **ACCEPT},
    )
    assert again.status_code == 409 and again.json()["error"]["code"] == "completed"


def test_only_the_runs_token_or_the_operator_key_reaches_its_task_runs(server):
    run = new_run(server, tasks=["update-address"])
    other = new_run(server, tasks=["update-address"])
    url = server.url + run["task_runs"][0]["mcp_url"]

    def status(headers):
        response = httpx.post(url, json=INITIALIZE, headers={**headers, **ACCEPT})
        if response.status_code == 200:  # the MCP answer, as a server-sent event
            return 200, "serverInfo" in response.text
        return response.status_code, response.json()["error"]["code"]

    assert status({}) == (401, "unauthorized")
    assert status(bearer("asr_not-a-token")) == (401, "unauthorized")
    assert status(bearer(other["bearer_token"])) == (404, "not_found")
    missing = httpx.post(
        f"{server.url}/v1/task-runs/tr_nope/mcp", json=INITIALIZE, headers={**bearer(KEY), **ACCEPT}
    )
    assert missing.status_code == 404
    assert status(bearer(run["bearer_token"])) == (200, True)
    assert status(bearer(KEY)) == (200, True)


def _initialize(server, task_run, token):
    return httpx.post(
        server.url + task_run["mcp_url"], json=INITIALIZE, headers={**bearer(token), **ACCEPT}
    )


def test_a_completed_task_run_opens_no_new_session_while_another_is_open(server):
    """A session left open kept the task run's server: a new initialize answered 200."""
    run = new_run(server, tasks=["update-address"])
    (task_run,) = run["task_runs"]
    token = run["bearer_token"]
    assert _initialize(server, task_run, token).status_code == 200  # open, never closed
    started = httpx.post(server.url + task_run["start_url"], headers=bearer(token))
    assert started.status_code == 200, started.text
    done = httpx.post(
        server.url + task_run["complete_url"], json={"output": "x"}, headers=bearer(token)
    )
    assert done.status_code == 200, done.text
    again = _initialize(server, task_run, token)
    assert again.status_code == 409, again.text
    assert again.json()["error"] == {
        "code": "completed",
        "message": f"task run {task_run['id']} is already completed",
    }


def test_the_sessions_of_a_task_run_are_capped(server):
    from assay.mcp.http import MAX_SESSIONS

    run = new_run(server, tasks=["update-address"])
    (task_run,) = run["task_runs"]
    opened = [_initialize(server, task_run, run["bearer_token"]) for _ in range(MAX_SESSIONS)]
    assert [response.status_code for response in opened] == [200] * MAX_SESSIONS
    assert len({response.headers["mcp-session-id"] for response in opened}) == MAX_SESSIONS
    refused = _initialize(server, task_run, run["bearer_token"])
    assert refused.status_code == 503 and "Too many open sessions" in refused.text
    closed = httpx.delete(
        server.url + task_run["mcp_url"],
        headers={
            **bearer(run["bearer_token"]),
            **ACCEPT,
            "mcp-session-id": opened[0].headers["mcp-session-id"],
            "mcp-protocol-version": "2025-11-25",
        },
    )
    assert closed.status_code == 200, closed.text
