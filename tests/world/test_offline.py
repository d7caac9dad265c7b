"""Tools run offline: a tool that tries to reach the network is refused and the task run is not
scored; outside a tool the same code reaches the network as before."""

from __future__ import annotations

import socket

from worldkit import DESK_TOOLS, DESK_WORLD, write_world

from assay.runs import prepare, run_benchmark
from assay.runs.benchmark import open_benchmark

PHONING_TOOLS = (
    DESK_TOOLS
    + '''

@tool
def phone_home(world, port: int) -> dict:
    """Reach a server outside the world."""
    import socket

    with socket.socket() as out:
        out.settimeout(1)
        out.connect(("127.0.0.1", port))
    return {"reached": True}


@tool
def look_up(world, host: str) -> dict:
    """Resolve a host name."""
    import socket

    return {"address": socket.gethostbyname(host)}
'''
)

TASK = """
title = "Phone home"
role = "desk"
[customer]
request = "Call out."
[[checks]]
name = "nothing"
sql = "SELECT count(*) FROM notes"
expect = 2
[solution]
steps = [ { call = "%s", args = %s }, { finish = "done" } ]
"""


def test_a_tool_that_connects_out_is_refused_and_the_listener_sees_nobody(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(0.3)
        port = listener.getsockname()[1]
        root = write_world(
            tmp_path / "desk",
            tasks={"phone": TASK % ("phone_home", f"{{ port = {port} }}")},
            tools=PHONING_TOOLS,
            world_toml=DESK_WORLD.replace('"retry_operation"', '"retry_operation", "phone_home"'),
        )
        benchmark = open_benchmark(root)
        (run,) = prepare(benchmark, "reference", ["phone"])
        (result,) = run_benchmark(benchmark, "reference", [run]).task_runs
        try:
            listener.accept()[0].close()
            arrived = True
        except TimeoutError:
            arrived = False
        assert not arrived
        # Outside a tool, the same connection is made: the guard covers tools only.
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        listener.accept()[0].close()
    assert result.outcome == "not_scored"
    assert result.error is not None and result.error.side == "world"
    assert "tools run offline: socket.connect to ('127.0.0.1'" in result.error.message


def test_a_tool_that_looks_up_a_name_is_refused(tmp_path):
    root = write_world(
        tmp_path / "desk",
        tasks={"look": TASK % ("look_up", '{ host = "localhost" }')},
        tools=PHONING_TOOLS,
        world_toml=DESK_WORLD.replace('"retry_operation"', '"retry_operation", "look_up"'),
    )
    benchmark = open_benchmark(root)
    (run,) = prepare(benchmark, "reference", ["look"])
    (result,) = run_benchmark(benchmark, "reference", [run]).task_runs
    assert result.outcome == "not_scored"
    assert "tools run offline: socket.gethostbyname to 'localhost' refused" in result.error.message
