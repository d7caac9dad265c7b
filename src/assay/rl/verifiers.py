"""Any world as an environment of the `verifiers` RL library (its v1 API): each rollout is a fresh
task run whose role's tools the model calls over MCP, and the reward is assay's grade.

Taskset id `assay_verifiers` (the package `assay_verifiers` re-exports this module):
`load_environment(AssayEnvConfig(taskset=AssayTasksetConfig(id="assay_verifiers",
world="worlds/shop")))` builds `AssayEnv`. verifiers pins `mcp==2.0.0` and `openai<3`, so it lives
in an environment of its own beside assay's core (not beside its `mcp` or `model` extras).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Iterator
from typing import Any, cast

import uvicorn
import verifiers.v1 as vf
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, Tool
from pydantic import Field
from verifiers.v1.mcp import SharedToolServer

from assay.rl.episode import Episode, Transition
from assay.rl.pool import TaskPool
from assay.taskrun.observation import Observation

SERVER = "assay"  # the MCP server's name, so its tools reach the model as assay's
REPLY = "reply_to_customer"
FINISH = "finish"
_TEXT = {"type": "string"}


class AssayTasksetConfig(vf.TasksetConfig):
    world: str
    """The world's directory."""
    tasks: list[str] = Field(default_factory=list)
    """Task ids (default: every task of `splits`)."""
    splits: list[str] = Field(default_factory=lambda: ["train"])
    """The splits tasks are drawn from when `tasks` is empty."""
    world_db: str | None = None
    """A PostgreSQL server URL to run the world on (default SQLite)."""


class AssayData(vf.TaskData):
    world: str
    task_id: str


class AssayTask(vf.Task[AssayData]):
    pass


class AssayTaskset(vf.Taskset[AssayTask, AssayTasksetConfig]):
    """One verifiers task per chosen assay task; its prompt is the task's request and briefing."""

    def load(self) -> Iterator[AssayTask]:
        for task in _pool(self.config).tasks:
            yield AssayTask(
                AssayData(
                    id=task.id,
                    name=task.id,
                    prompt=task.customer.request,
                    world=self.config.world,
                    task_id=task.id,
                ),
                self.config.task,
            )


class AssayEnvConfig(vf.EnvConfig):
    agent: vf.AgentConfig = vf.AgentConfig()


class AssayEnv(vf.Env[AssayEnvConfig]):
    """A rollout: start a task run, serve its tools over MCP on loopback while the model's harness
    runs, finish the run with the model's last reply if it did not call `finish`, and record the
    grade: reward `assay` (1 verified, 0 not achieved, -1 a rule broken, 0 not scored) and the
    metrics `assay_score`, `assay_verified` and `assay_not_scored`."""

    async def run(self, task: vf.Task, agents: vf.Agents) -> None:
        pool = self._task_pool()
        episode = pool.start(pool.pick(lambda count: 0, task.data.task_id))
        first = episode.observation()
        prompted = task.with_data(prompt=first.request, system_prompt=_system_prompt(first))
        tools = ToolServer(episode)
        try:
            async with tools.serving() as url:
                shared = {SERVER: SharedToolServer(url=url, local=True, external=True)}
                trace = await agents.agent.run(prompted, tools=shared)
            if tools.last is None or not tools.last.done:
                tools.last = episode.act({"finish": trace.last_reply})
        finally:
            episode.close()
        _record(trace, tools.last)

    def _task_pool(self) -> TaskPool:
        """The world loaded once per environment; each episode has a world state of its own."""
        pool = getattr(self, "_pool", None)
        if pool is None:
            pool = self._pool = _pool(cast(AssayTasksetConfig, self.config.taskset))
        return pool


class ToolServer:
    """The task run's tools, `reply_to_customer` and `finish` as one MCP server (Streamable HTTP
    on a free loopback port); each call is one action of the episode."""

    def __init__(self, episode: Episode):
        self.episode = episode
        self.last: Transition | None = None
        self.mcp = MCPServer(SERVER)
        server = cast(Any, self.mcp)  # the protocol handlers call these two methods
        server.list_tools = self.list_tools
        server.call_tool = self.call_tool

    async def list_tools(self) -> list[Tool]:
        observation = self.episode.observation()
        role = [
            Tool(
                name=tool["name"],
                description=tool.get("description") or None,
                input_schema=tool["parameters"],
            )
            for tool in observation.tools
        ]
        return [*role, *_own_tools()]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None):
        if self.last is not None and self.last.done:
            return _result({"error": "the task run has ended"}, error=True)
        if name == REPLY:
            action: dict[str, Any] = {"say": str(arguments.get("text", ""))}
        elif name == FINISH:
            action = {"finish": str(arguments.get("output", ""))}
        else:
            action = {"call": {"tool": name, "args": arguments}}
        self.last = self.episode.act(action)
        events = [
            event.model_dump(by_alias=True, exclude_none=True)
            for event in self.last.observation.events
        ]
        shown: dict[str, Any] = {"events": events}
        if self.last.done:
            shown["outcome"] = self.last.info.get("outcome")
        rejected = bool(self.last.info.get("rejected"))
        return _result(shown, error=rejected)

    @contextlib.asynccontextmanager
    async def serving(self) -> AsyncIterator[str]:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        app = self.mcp.streamable_http_app()
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        serving = asyncio.create_task(server.serve(sockets=[listener]))
        try:
            while not server.started:
                if serving.done():
                    serving.result()
                await asyncio.sleep(0.01)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            server.should_exit = True
            await serving
            listener.close()


def _pool(config: AssayTasksetConfig) -> TaskPool:
    return TaskPool.open(
        config.world,
        config.tasks or None,
        None if config.tasks else config.splits,
        world_db=config.world_db,
        agent="verifiers",
    )


def _system_prompt(first: Observation) -> str:
    about = first.briefing
    parts = [
        f"You work in {about.world}." if about else "",
        (about.world_description or "") if about else "",
        (about.role_description or "") if about else "",
        (about.instructions or "") if about else "",
        f"Use the {SERVER} tools. `{REPLY}(text)` sends the customer a message and returns the "
        f"answer; when you are done, call `{FINISH}(output)` with your final answer.",
    ]
    return "\n\n".join(part for part in parts if part)


def _own_tools() -> list[Tool]:
    def one(name: str, field: str, text: str) -> Tool:
        schema = {"type": "object", "properties": {field: _TEXT}, "required": [field]}
        return Tool(name=name, description=text, input_schema=schema)

    return [
        one(REPLY, "text", "Send a message to the customer; returns the customer's answer."),
        one(FINISH, "output", "End the task with your final answer; the world is then graded."),
    ]


def _result(shown: dict[str, Any], *, error: bool) -> CallToolResult:
    text = json.dumps(shown, default=str)
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=error)


def _record(trace: vf.Trace, last: Transition | None) -> None:
    info = last.info if last is not None else {}
    trace.record_reward("assay", last.reward if last is not None else 0.0)
    trace.record_metrics(
        {
            "assay_score": float(info.get("score") or 0.0),
            "assay_verified": float(info.get("outcome") == "verified"),
            "assay_not_scored": float(bool(info.get("not_scored", last is None))),
        }
    )


__all__ = ["AssayEnv", "AssayEnvConfig", "AssayTaskset", "AssayTasksetConfig"]
