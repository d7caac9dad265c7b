"""Task runs served to clients outside this process, by id and token: the flow the HTTP API and
the MCP server both drive (create a benchmark run, start, act, complete, cancel, read), the
served worlds, who may see what, and the task runs in flight. No surface imports another's
rooms for this; they all come here (docs/concepts.md, "Surfaces")."""
