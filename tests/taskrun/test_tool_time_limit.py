"""A tool that runs too long does not hang the run: past `tool_timeout_s` it is the world failing."""

from __future__ import annotations

import time

import pytest
from worldkit import DESK_TOOLS, DESK_WORLD, write_world

from assay.runs import run_task
from assay.taskrun import call

SLOW_TOOLS = (
    DESK_TOOLS
    + '''

@tool(writes=True)
def nap(world) -> dict:
    """Writes, then sleeps far past the limit."""
    world.db.execute("INSERT INTO notes (text) VALUES ('napping')")
    time.sleep(100)
    return {}


@tool
def spin(world) -> dict:
    """A busy loop that swallows every Exception."""
    while True:
        try:
            sum(range(1000))
        except Exception:
            pass


@tool
def heavy(world) -> int:
    """One statement that would take minutes."""
    return world.db.value(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    )


@tool
def quick(world) -> dict:
    """Well within the limit."""
    return {"ok": True}
'''
).replace("from assay import", "import time\nfrom assay import")

LIMIT_S = 0.5


@pytest.fixture
def slow_desk(tmp_path, open_world):
    world_toml = DESK_WORLD.replace(
        'verifiers = ["verifiers.py"]', f'verifiers = ["verifiers.py"]\ntool_timeout_s = {LIMIT_S}'
    ).replace('"retry_operation"]', '"retry_operation", "nap", "spin", "heavy", "quick"]')
    return open_world(write_world(tmp_path, world_toml=world_toml, tools=SLOW_TOOLS))


class _Calls:
    def __init__(self, tool):
        self.tool = tool

    def act(self, observation):
        return call(self.tool) if observation.turn == 0 else {"finish": "done"}


@pytest.mark.parametrize("tool", ["nap", "spin", "heavy"])
def test_a_tool_past_its_time_limit_is_the_world_failing(slow_desk, tool):
    began = time.monotonic()
    result = run_task(slow_desk, slow_desk.tasks["basic"], _Calls(tool), run_id="tr_x")
    assert time.monotonic() - began < 10
    assert result.outcome == "not_scored"
    assert (result.status, result.summary.termination) == ("failed", "world_error")
    assert result.error.side == "world"
    assert result.error.message == f"tool {tool} ran past its time limit of 0.5 s (tool_timeout_s)"


def test_after_an_overrun_the_next_task_run_is_whole(slow_desk):
    run_task(slow_desk, slow_desk.tasks["basic"], _Calls("nap"), run_id="tr_x")
    result = run_task(slow_desk, slow_desk.tasks["basic"], _Calls("quick"), run_id="tr_y")
    assert (result.error, result.summary.termination) == (None, "finished")
    assert result.trajectory["steps"][1]["events"][0]["result"] == {"ok": True}


def test_another_alarm_handler_is_left_alone_and_a_late_call_still_overruns(slow_desk):
    import signal

    def mine(signum, frame):
        raise AssertionError("the tool's limit must not ring another handler")

    previous = signal.signal(signal.SIGALRM, mine)
    try:
        quick = run_task(slow_desk, slow_desk.tasks["basic"], _Calls("quick"), run_id="tr_q")
        assert signal.getsignal(signal.SIGALRM) is mine
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        assert (quick.error, quick.summary.termination) == (None, "finished")
    finally:
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("tool", ["nap", "spin", "heavy"])
def test_after_an_overrun_this_thread_may_reach_the_network_again(slow_desk, tool):
    import socket

    run_task(slow_desk, slow_desk.tasks["basic"], _Calls(tool), run_id="tr_x")
    with socket.create_server(("127.0.0.1", 0)) as listener:  # only a tool's call is offline
        socket.create_connection(listener.getsockname(), timeout=1).close()
