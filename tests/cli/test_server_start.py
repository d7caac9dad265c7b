"""`--ready-file` and `--start-timeout` of the servers, as real processes: the file names the
port a server got (with `--port 0`) once it answers, and goes as it stops; a server that cannot
listen in time stops with exit code 1 and one line."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from processkit import READY_BOUND_S

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "worlds" / "shop"


def assay(*args: str) -> list[str]:
    return [sys.executable, "-c", "from assay.cli import main; main()", *args]


def environment(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "ASSAY_HOME": str(tmp_path / "home"),
        "ASSAY_API_KEY": "server-start-key",
        "PYTHONPATH": str(ROOT / "src"),
    }


def wait_for_file(process: subprocess.Popen, path: Path) -> dict:
    deadline = time.monotonic() + READY_BOUND_S
    while not path.exists():
        assert process.poll() is None, process.communicate()[1]
        assert time.monotonic() < deadline, f"{path} never written"
        time.sleep(0.05)
    return json.loads(path.read_text())


def test_serve_on_any_port_writes_where_it_listens_once_it_answers_and_removes_it_as_it_stops(
    tmp_path,
):
    ready = tmp_path / "ready.json"
    command = assay("serve", "--worlds", str(SHOP), "--port", "0", "--ready-file", str(ready))
    server = subprocess.Popen(
        [*command, "--store", str(tmp_path / "api.db")],
        env=environment(tmp_path),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        found = wait_for_file(server, ready)
        assert found["pid"] == server.pid and found["port"] > 0
        assert found["url"] == f"http://127.0.0.1:{found['port']}"
        with urllib.request.urlopen(found["url"] + "/v1/health", timeout=30) as answer:
            assert json.loads(answer.read()) == {"status": "ok"}
    finally:
        server.send_signal(signal.SIGINT)
        _, stderr = server.communicate(timeout=60)
    assert f"serving {SHOP} on {found['url']}" in stderr.splitlines()  # the port it got, not 0
    assert not ready.exists()
    assert not list(tmp_path.glob(".ready.json.*"))  # no half-written file left beside it


def test_a_server_not_listening_within_its_start_timeout_stops_with_one_line(tmp_path):
    ready = tmp_path / "ready.json"
    command = assay("serve", "--worlds", str(SHOP), "--port", "0", "--ready-file", str(ready))
    ended = subprocess.run(
        [*command, "--store", str(tmp_path / "api.db"), "--start-timeout", "0.01"],
        env=environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=READY_BOUND_S,
    )
    assert ended.returncode == 1, ended.stderr
    lines = ended.stderr.strip().splitlines()
    assert lines[-1] == "error: serve: not listening within --start-timeout 0.01 s"
    assert "Traceback" not in ended.stderr
    assert not ready.exists()


def test_openenv_takes_the_same_flags(tmp_path):
    pytest.importorskip("openenv.core")
    ended = subprocess.run(
        assay("openenv", str(SHOP), "--port", "0", "--start-timeout", "0.01"),
        env=environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=READY_BOUND_S,
    )
    assert ended.returncode == 1, ended.stderr
    assert ended.stderr.strip().splitlines()[-1] == (
        "error: openenv: not listening within --start-timeout 0.01 s"
    )
    assert "Traceback" not in ended.stderr


def test_importing_assay_openenv_leaves_gradio_unloaded_unless_its_web_interface_is_asked_for():
    pytest.importorskip("openenv.core")
    code = "import sys, assay.openenv; print('gradio' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop("ENABLE_WEB_INTERFACE", None)
    quiet = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert quiet.stdout.strip() == "False", quiet.stderr
    asked = subprocess.run(
        [sys.executable, "-c", code],
        env={**env, "ENABLE_WEB_INTERFACE": "true"},
        capture_output=True,
        text=True,
    )
    assert asked.stdout.strip() == "True", asked.stderr


def test_a_deadline_interrupts_only_inside_its_watch_and_reads_as_missed_whatever_it_became():
    # Starting a thread can take longer than a short limit on a loaded machine: the interrupt
    # must come from inside `watching`, never from making the deadline before it.
    import typer

    from assay.cli.server_start import StartDeadline

    deadline = StartDeadline(0.001)
    time.sleep(0.05)  # past the limit, and no interrupt: the timer has not started
    with pytest.raises(typer.Exit) as stopped, deadline.watching("serve"):
        time.sleep(5)  # it had already run out: its timer fires at once
    assert stopped.value.exit_code == 1 and deadline.expired and not deadline.met()
    # an interrupt that native code turned into its own error reads as the missed deadline too
    late = StartDeadline(0.001)
    with pytest.raises(typer.Exit), late.watching("openenv"):
        try:
            time.sleep(5)
        except KeyboardInterrupt:  # as pydantic-core does while it builds a model
            raise ValueError("SchemaError: KeyboardInterrupt") from None


def test_a_deadline_met_first_never_interrupts_and_other_errors_pass_through():
    from assay.cli.server_start import StartDeadline

    deadline = StartDeadline(0.2)
    with pytest.raises(ValueError), deadline.watching("serve"):
        assert deadline.met()
        time.sleep(0.4)  # past the limit, but met: no interrupt
        raise ValueError("a bad world")
    assert not deadline.expired


def test_a_deadline_whose_interrupt_was_swallowed_stops_the_server_as_it_starts_listening():
    # Code on the way (a library's own `except BaseException`) can swallow the interrupt: the
    # server must not then serve for ever, but stop as it starts listening, with the one line.
    import typer

    from assay.cli.server_start import StartDeadline, run_server

    async def app(scope, receive, send):  # never reached
        raise AssertionError(scope)

    deadline = StartDeadline(0.001)
    with pytest.raises(typer.Exit) as stopped, deadline.watching("openenv"):
        with contextlib.suppress(KeyboardInterrupt):  # swallowed
            time.sleep(5)
        run_server(app, "127.0.0.1", 0, ready_file=None, deadline=deadline, announce="{url}")
    assert stopped.value.exit_code == 1 and deadline.expired


def test_importing_assay_openenv_leaves_fastmcp_unloaded_until_openenvs_mcp_parts_are_used():
    pytest.importorskip("openenv.core")
    code = """
import sys
import assay.openenv
from openenv.core.env_server import http_server
print("fastmcp" in sys.modules)
import openenv.core
from openenv.core.env_server.interfaces import Environment
print(issubclass(openenv.core.MCPEnvironment, Environment), "fastmcp" in sys.modules)
from fastmcp import FastMCP
from openenv.core.env_server.mcp_environment import MCPEnvironment
server = FastMCP("tools")
@server.tool
def add(a: int, b: int) -> int:
    return a + b
print(sorted(http_server.get_server_tools(server)), MCPEnvironment is openenv.core.MCPEnvironment)
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.stdout.splitlines() == ["False", "True True", "['add'] True"], done.stderr


def test_an_openenv_core_that_wants_more_of_its_mcp_module_is_loaded_whole(tmp_path):
    # A later openenv-core might import more from its MCP module than the stand-in has: then the
    # package is loaded again as it is, not left broken.
    server = tmp_path / "openenv" / "core" / "env_server"
    server.mkdir(parents=True)
    (tmp_path / "openenv" / "__init__.py").write_text("")
    (tmp_path / "openenv" / "core" / "__init__.py").write_text("from . import env_server\n")
    (server / "__init__.py").write_text("from .http_server import create_app\n")
    (server / "http_server.py").write_text(
        "from .mcp_environment import get_server_tools, list_resources\n"
        "def create_app():\n    return list_resources()\n"
    )
    (server / "mcp_environment.py").write_text(
        "def get_server_tools(server):\n    return {}\n"
        "def list_resources():\n    return 'the real module'\n"
    )
    upstream = ROOT / "src" / "assay" / "openenv" / "upstream.py"
    code = f"""
import importlib.util, sys
spec = importlib.util.spec_from_file_location("upstream_under_test", {str(upstream)!r})
spec.loader.exec_module(importlib.util.module_from_spec(spec))
import openenv.core
print(openenv.core.env_server.create_app())
"""
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.stdout.strip() == "the real module", done.stderr
