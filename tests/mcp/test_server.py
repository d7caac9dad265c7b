"""The MCP server over the API's task-run flow, in process, with the SDK's in-memory client."""

from __future__ import annotations

import anyio
import pytest
from mcpkit import CLIENT, client_info, shown
from worldkit import SHOP

from assay.mcp.local import BenchmarkDesk, LocalRun, TaskDesk, task_plan
from assay.mcp.server import build_server
from assay.runs.store import open_store
from assay.served.catalog import Catalog
from assay.served.context import Context


@pytest.fixture
def context(tmp_path):
    store = open_store(str(tmp_path / "records.db"))
    yield Context.open(Catalog([SHOP]), store, "operator", 3600)
    store.close()


def served(desk, work, **options):
    from mcp import Client

    async def main():
        server = build_server(desk)
        async with Client(server, client_info=client_info(), **options) as client:
            return await work(client)

    return anyio.run(main)


def test_the_tools_are_the_roles_with_the_worlds_schemas_then_reply_and_finish(context):
    run = LocalRun(context, task_plan("shop@1", ["update-address"], [], 1, False))

    async def work(client):
        return (await client.list_tools()).tools

    tools = served(TaskDesk(run), work)
    world = context.catalog.find("shop").world
    described = world.describe_role("support")
    assert [tool.name for tool in tools] == [
        *(tool["name"] for tool in described),
        "reply_to_customer",
        "finish",
    ]
    for tool, source in zip(tools, described, strict=False):
        assert tool.input_schema == source["parameters"]
        assert tool.description == source["description"]
        assert tool.annotations.read_only_hint is (not source["writes"])
    assert tools[-1].input_schema["required"] == ["output"]
    (state,) = context.store.task_states(run.created.benchmark_run_id)
    assert state.phase == "started"  # the first request starts the task run
    assert context.store.benchmark_run(run.created.benchmark_run_id).agent == f"mcp:{CLIENT}"


def test_a_benchmark_moves_one_task_run_at_a_time(context):
    run = LocalRun(context, task_plan("shop@1", ["update-address", "ask-for-email"], [], 1, False))

    async def work(client):
        seen = {"before": [tool.name for tool in (await client.list_tools()).tools]}
        seen["early finish"] = await client.call_tool("finish", {"output": ""})
        seen["unknown"] = await client.call_tool("start_task", {"task_id": "nope"})
        seen["start"] = await client.call_tool("start_task", {"task_id": "update-address"})
        seen["again"] = await client.call_tool("start_task", {"task_id": "ask-for-email"})
        seen["during"] = (await client.list_tools()).tools
        seen["finish"] = await client.call_tool("finish", {"output": "done"})
        seen["after"] = (await client.list_tools()).tools
        return seen

    seen = served(BenchmarkDesk(run), work)
    assert seen["before"] == ["start_task"]
    assert seen["early finish"].is_error and "start_task" in shown(seen["early finish"])["error"]
    assert seen["unknown"].is_error and "'nope'" in shown(seen["unknown"])["error"]
    begun = shown(seen["start"])
    assert not seen["start"].is_error and "18 Mill Lane, York" in begun["brief"]
    assert seen["again"].is_error and "call finish first" in shown(seen["again"])["error"]
    assert {"start_task", "update_address", "finish"} <= {tool.name for tool in seen["during"]}
    assert shown(seen["finish"])["tasks_left"] == ["ask-for-email"]
    (start,) = seen["after"]
    assert start.input_schema["properties"]["task_id"]["enum"] == ["ask-for-email"]


def test_a_scored_run_shows_only_outcome_reward_score_and_verdict(context):
    run = LocalRun(context, task_plan("shop@1", ["update-address"], [], 1, True))

    async def work(client):
        return await client.call_tool("finish", {"output": ""})

    assert set(shown(served(TaskDesk(run), work))) == {"outcome", "reward", "score", "verdict"}


def test_past_max_turns_calls_are_refused_and_finish_grades(context):
    run = LocalRun(context, task_plan("shop@1", ["update-address"], [], 1, False))
    limit = context.catalog.find("shop").tasks["update-address"].max_turns

    async def work(client):
        calls = [
            await client.call_tool("find_order", {"order_id": "B-2003"}) for _ in range(limit + 1)
        ]
        return calls, await client.call_tool("finish", {"output": ""})

    calls, finished = served(TaskDesk(run), work)
    assert shown(calls[limit - 1])["done"] is True
    assert calls[limit].is_error and "call finish" in shown(calls[limit])["error"]
    assert shown(finished)["summary"]["termination"] == "max_turns"


def test_the_prompt_and_resource_are_the_brief_and_nothing_else_is_served(context):
    from mcp import MCPError

    run = LocalRun(context, task_plan("shop@1", ["update-address"], [], 1, False))

    async def work(client):
        prompt = await client.get_prompt("task")
        with pytest.raises(MCPError, match="no prompt 'other'"):
            await client.get_prompt("other")
        return prompt

    text = served(TaskDesk(run), work).messages[0].content.text
    task = context.catalog.find("shop").tasks["update-address"]
    assert task.customer.request in text and "finish(output)" in text


def test_starting_and_finishing_a_task_run_says_the_tool_list_changed(context):
    from mcp import types

    run = LocalRun(context, task_plan("shop@1", ["update-address"], [], 1, False))
    heard = []

    async def hear(message):
        if isinstance(message, types.ToolListChangedNotification):
            heard.append(message.method)

    async def work(client):
        await client.call_tool("find_order", {"order_id": "B-2003"})  # refused: nothing started
        await client.call_tool("start_task", {"task_id": "update-address"})
        await client.call_tool("find_order", {"order_id": "B-2003"})
        await client.call_tool("finish", {"output": ""})
        await client.list_tools()  # the notifications have arrived by the next answer

    served(BenchmarkDesk(run), work, mode="legacy", message_handler=hear)
    assert heard == ["notifications/tools/list_changed"] * 2
