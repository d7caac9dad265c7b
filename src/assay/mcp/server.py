"""The MCP server over a desk (one task run, a task's runs in turn, or a benchmark's): tools, the
prompt `task` and the resource `assay://task`, on the SDK's low-level `Server`."""

from __future__ import annotations

from typing import Any, Protocol

from mcp import MCPError, types
from mcp.server import Server, ServerRequestContext

from assay import __version__
from assay.mcp.brief import PROMPT, RESOURCE

Context = ServerRequestContext[Any, Any]


class Desk(Protocol):
    """What a server serves; `agent` is `mcp:<client name>`, who asks."""

    def tools(self, agent: str) -> list[types.Tool]: ...

    def call(self, agent: str, name: str, args: dict[str, Any]) -> types.CallToolResult: ...

    def brief(self, agent: str) -> str: ...

    def tools_changed(self) -> bool:
        """Whether the tool list changed since last asked (a benchmark's task run began or ended)."""
        ...


def build_server(desk: Desk, *, instructions: str | None = None) -> Server[Any]:
    """A low-level MCP server whose every request is answered by `desk`."""

    async def list_tools(
        ctx: Context, _: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=desk.tools(agent_of(ctx)))

    async def call_tool(ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        result = desk.call(agent_of(ctx), params.name, params.arguments or {})
        if desk.tools_changed():
            await ctx.session.send_tool_list_changed()
        return result

    async def list_prompts(
        ctx: Context, _: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        described = "The task: where you work, your instructions and the customer's request."
        return types.ListPromptsResult(prompts=[types.Prompt(name=PROMPT, description=described)])

    async def get_prompt(
        ctx: Context, params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        if params.name != PROMPT:
            raise _unknown("prompt", params.name, PROMPT)
        text = types.TextContent(type="text", text=desk.brief(agent_of(ctx)))
        return types.GetPromptResult(messages=[types.PromptMessage(role="user", content=text)])

    async def list_resources(
        ctx: Context, _: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        resource = types.Resource(uri=RESOURCE, name=PROMPT, mime_type="text/markdown")
        return types.ListResourcesResult(resources=[resource])

    async def read_resource(
        ctx: Context, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        if str(params.uri) != RESOURCE:
            raise _unknown("resource", str(params.uri), RESOURCE)
        text = desk.brief(agent_of(ctx))
        contents = types.TextResourceContents(uri=RESOURCE, mime_type="text/markdown", text=text)
        return types.ReadResourceResult(contents=[contents])

    return Server(
        "assay",
        version=__version__,
        instructions=instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


def agent_of(ctx: Context) -> str:
    """`mcp:<name>` from the client's `clientInfo`; `mcp` when it gave none."""
    params = ctx.session.client_params
    name = params.client_info.name if params is not None else ""
    return f"mcp:{name}" if name else "mcp"


def _unknown(kind: str, name: str, known: str) -> MCPError:
    return MCPError(code=types.INVALID_PARAMS, message=f"no {kind} {name!r}; there is {known!r}")
