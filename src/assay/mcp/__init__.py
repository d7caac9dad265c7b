"""Any MCP client as the agent: a task run served as an MCP server, on stdio (`assay mcp`) or over
Streamable HTTP under the API (`/v1/task-runs/{id}/mcp`). The `mcp` package (`assay[mcp]`) is
imported only here, never on the command line's start-up path."""
