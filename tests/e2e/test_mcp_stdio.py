"""`assay mcp` on stdio, driven by the MCP SDK's own client in a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess

import anyio
import pytest
from apikit import ASSAY
from mcpkit import CLIENT, client_info, play, reference, shown, stdio, stored
from worldkit import ROOT, SHOP

from assay.runs import open_benchmark
from assay.runs.handle import run_task
from assay.taskrun.agents import agent_factory


def connected(params, work):
    """Run `work(session)` against the server `params` starts; what it returns."""
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    async def main():
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write, client_info=client_info()) as session,
        ):
            await session.initialize()
            return await work(session)

    return anyio.run(main)


@pytest.fixture(scope="module")
def benchmark_played(tmp_path_factory):
    """Every shop task of the default splits played with its reference steps through one
    `assay mcp --benchmark` server; the first call results of each task, and the store."""
    store = tmp_path_factory.mktemp("mcp") / "records.db"
    benchmark = open_benchmark(SHOP)

    async def work(session):
        played = {}
        listed = await session.list_tools()
        tasks = listed.tools[0].input_schema["properties"]["task_id"]["enum"]
        for task_id in tasks:
            begun = shown(await session.call_tool("start_task", {"task_id": task_id}))
            assert benchmark.tasks[task_id].customer.request in begun["brief"]
            names = {tool.name for tool in (await session.list_tools()).tools}
            assert {"finish", "reply_to_customer"} <= names
            played[task_id] = await play(session, benchmark.tasks[task_id].solution.steps)
        return played

    played = connected(stdio("--benchmark", str(SHOP), "--store", str(store)), work)
    return played, store


def test_every_shop_task_over_stdio_gets_the_reference_outcome_and_state(benchmark_played):
    played, store = benchmark_played
    expected = reference()
    assert sorted(played) == sorted(expected)
    record, results = stored(store)
    assert (record.agent, record.phase) == (f"mcp:{CLIENT}", "completed")
    got = {result.task_id: result for result in results}
    for task_id, run in expected.items():
        assert (got[task_id].outcome, got[task_id].final_state_hash) == (
            run["outcome"],
            run["final_state_hash"],
        ), task_id
        assert got[task_id].agent == f"mcp:{CLIENT}"
        finished = shown(played[task_id][-1])
        assert (finished["outcome"], finished["score"]) == (run["outcome"], run["score"])


def test_a_change_and_an_unknown_outcome_reach_the_client_in_tool_results(benchmark_played):
    played, _ = benchmark_played
    held = played["refund-changed-to-credit"]
    first = shown(held[1])  # after find_order, the refund comes back held, with the new message
    assert held[1].is_error
    assert first["events"][0] | {"operation_id": None} == {
        "type": "tool_result",
        "tool": "refund_payment",
        "status": "HELD",
        "operation_id": None,
        "message": "A new message from the customer arrived before this change was made",
    }
    assert first["events"][1]["from"] == "customer"
    assert "store credit" in first["events"][1]["text"]
    timed_out = [shown(result) for result in played["refund-unknown-outcome"]]
    unknown = next(r["events"][0] for r in timed_out if r["events"][0].get("status") == "UNKNOWN")
    assert unknown["message"] == "request timed out; the outcome is unknown"
    assert unknown["operation_id"].startswith("op-")


def test_replaying_a_stored_trajectory_reaches_the_same_final_state(benchmark_played, tmp_path):
    _, store = benchmark_played
    _, results = stored(store)
    benchmark = open_benchmark(SHOP)
    for result in results:
        saved = tmp_path / f"{result.task_id}.json"
        saved.write_text(json.dumps(result.trajectory))
        agent = agent_factory(f"replay:{saved}")(benchmark.tasks[result.task_id])
        again = run_task(benchmark, benchmark.tasks[result.task_id], agent, run_id="replayed")
        assert again.final_state_hash == result.final_state_hash, result.task_id
        assert again.outcome == result.outcome


def test_one_task_served_twice_with_its_brief_and_a_rejected_attempt(tmp_path):
    store = tmp_path / "records.db"
    benchmark = open_benchmark(SHOP)
    task = benchmark.tasks["update-address"]

    async def work(session):
        prompt = await session.get_prompt("task")
        resource = await session.read_resource("assay://task")
        bad = await session.call_tool("update_address", {"order_id": 2003})
        lacked = await session.call_tool("delete_everything", {})
        first = await play(session, task.solution.steps)
        second = await play(session, task.solution.steps)
        after = await session.call_tool("find_order", {"order_id": "B-2003"})
        return prompt, resource, bad, lacked, first, second, after

    params = stdio(str(SHOP), "--task", task.id, "--repeat", "2", "--store", str(store))
    prompt, resource, bad, lacked, first, second, after = connected(params, work)
    assert task.customer.request in prompt.messages[0].content.text
    assert resource.contents[0].text == prompt.messages[0].content.text
    assert bad.is_error and shown(bad)["events"][0]["code"] == "invalid_arguments"
    assert lacked.is_error and shown(lacked)["events"][0]["code"] == "unknown_tool"
    assert shown(first[-1])["next"] == "task run 2 of 2 begins now"
    assert shown(second[-1])["outcome"] == "verified"
    assert after.is_error and "finished" in shown(after)["error"]
    record, results = stored(store)
    assert record.phase == "completed"
    by_repeat = {result.repeat: result for result in results}
    assert [by_repeat[0].summary.rejected_attempts, by_repeat[1].summary.rejected_attempts] == [
        2,
        0,
    ]
    assert {result.outcome for result in results} == {"verified"}


def test_the_server_says_what_the_task_is_when_it_starts(tmp_path):
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    async def main():
        params = stdio(str(SHOP), "--task", "update-address", "--store", str(tmp_path / "r.db"))
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write, client_info=client_info()) as session,
        ):
            return await session.initialize()

    started = anyio.run(main)
    assert "18 Mill Lane, York" in started.instructions
    assert started.capabilities.prompts is not None and started.capabilities.resources is not None


def test_a_client_that_disconnects_leaves_its_task_run_cancelled_graded_and_stored(tmp_path):
    store = tmp_path / "records.db"

    async def work(session):
        return await session.call_tool("find_order", {"order_id": "A-1042"})

    found = connected(
        stdio(str(SHOP), "--task", "refund-double-charge", "--store", str(store)), work
    )
    assert shown(found)["events"][0]["status"] == "OK"
    record, results = stored(store)
    assert (record.phase, record.agent) == ("cancelled", f"mcp:{CLIENT}")
    (result,) = results
    assert (result.status, result.summary.termination) == ("cancelled", "cancelled")
    assert result.outcome == "not_achieved" and result.checks  # graded all the same
    assert result.summary.turns == 1


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["nowhere", "--task", "x"], "nowhere"),
        ([str(SHOP), "--task", "no-such-task"], "unknown task 'no-such-task'"),
        ([str(SHOP)], "--task"),
        ([], "WORLD"),
        ([str(SHOP), "--benchmark", str(SHOP)], "WORLD"),
        (["--benchmark", str(SHOP), "--task", "nope"], "unknown task 'nope'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, said, tmp_path):
    done = subprocess.run(
        [ASSAY, "mcp", *args, "--store", str(tmp_path / "r.db")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and said in lines[0], done.stderr


def test_sigterm_with_stdin_still_open_cancels_stores_and_exits(tmp_path):
    import signal

    store = tmp_path / "records.db"
    params = stdio(str(SHOP), "--task", "update-address", "--store", str(store))
    server = subprocess.Popen(
        [params.command, *params.args],
        cwd=params.cwd,
        env={**os.environ, **params.env},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    hello = {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    }
    call = {"name": "find_order", "arguments": {"order_id": "B-2003"}}
    for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
    ):
        server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()
    answers = [json.loads(server.stdout.readline()) for _ in range(2)]
    assert [answer["id"] for answer in answers] == [1, 2]
    server.send_signal(signal.SIGTERM)
    assert server.wait(10) == 0
    assert "recorded as run" in server.stderr.read()
    server.stdin.close()
    record, (result,) = stored(store)
    assert (record.agent, record.phase, result.status) == ("mcp:raw", "cancelled", "cancelled")


def test_a_withdrawn_task_that_does_not_load_never_blocks_the_server(tmp_path):
    """Validated, a task that does not load is withdrawn: `assay mcp --benchmark` serves the rest."""
    from worldkit import copy_shop

    world = copy_shop(tmp_path / "shop")
    (world / "tasks" / "typo.toml").write_text('title = "x"\nrole = "support"\ntitel = "y"\n')
    store = tmp_path / "records.db"
    validated = subprocess.run(
        [ASSAY, "validate", str(world), "--store", str(store), "--task", "typo"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert validated.returncode == 1, validated.stderr

    async def work(session):
        listed = await session.list_tools()
        return listed.tools[0].input_schema["properties"]["task_id"]["enum"]

    served = connected(stdio("--benchmark", str(world), "--store", str(store)), work)
    assert "typo" not in served and "refund-double-charge" in served
