"""`assay serve --mllp --sftp-port` as a real process: the listeners bind 127.0.0.1, appear in a
benchmark run's endpoints, and carry messages and files to the started task run."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import asyncssh
from healthkit import A04, write_hl7_world
from processkit import wait_ready

KEY = "serve-listeners-key"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def post(url: str, body: dict | None, token: str) -> dict:
    request = urllib.request.Request(
        url,
        data=json.dumps(body or {}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_serve_opens_mllp_and_sftp_on_loopback(tmp_path):
    world = write_hl7_world(tmp_path / "interface")
    toml = world / "world.toml"
    text = toml.read_text().replace('"hl7_inbox"]', '"hl7_inbox", "files_write"]')
    dropbox = '[services.dropbox]\nkind = "files"\nwritable = ["outbound/**"]\n\n[roles.clerk]'
    toml.write_text(text.replace("[roles.clerk]", dropbox))
    port = free_port()
    env = {**os.environ, "ASSAY_API_KEY": KEY, "PYTHONPATH": str(Path("src").resolve())}
    command = [
        sys.executable,
        "-c",
        "from assay.cli import main; main()",
        "serve",
        "--worlds",
        str(world),
        "--port",
        str(port),
        "--store",
        str(tmp_path / "api.db"),
        "--mllp",
        "0",
        "--sftp-port",
        "0",
        "--sftp-host-key",
        str(tmp_path / "host_key"),
    ]
    server = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(server, f"{base}/v1/health")
        run = post(f"{base}/v1/benchmark-runs", {"benchmark": "interface"}, KEY)
        endpoints = run["endpoints"]
        assert endpoints["hl7_mllp"].startswith("mllp://127.0.0.1:")
        assert endpoints["sftp"].startswith("sftp://127.0.0.1:")
        token = run["bearer_token"]
        post(f"{base}{run['task_runs'][0]['start_url']}", None, token)
        host, mllp_port = endpoints["hl7_mllp"].removeprefix("mllp://").split(":")
        with socket.create_connection((host, int(mllp_port)), timeout=10) as sock:
            sock.sendall(b"\x0b" + A04.encode() + b"\x1c\r")
            ack = sock.recv(65536).decode()
        assert "MSA|AA|MSG0001" in ack
        sftp_port = int(endpoints["sftp"].rsplit(":", 1)[1])
        assert (tmp_path / "host_key").exists()

        async def upload() -> list[str]:
            async with (
                asyncssh.connect(
                    "127.0.0.1",
                    sftp_port,
                    username=run["benchmark_run_id"],
                    password=token,
                    known_hosts=None,
                ) as connection,
                connection.start_sftp_client() as sftp,
            ):
                async with sftp.open("outbound/note.txt", "w") as handle:
                    await handle.write("sent\n")
                return await sftp.listdir("outbound")

        assert "note.txt" in asyncio.run(upload())
        done = post(f"{base}{run['task_runs'][0]['complete_url']}", {"output": "ok"}, token)
        assert (done["outcome"], done["reward"]) == ("verified", 1)
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_busy_sftp_port_is_one_line_and_exit_2(tmp_path):
    """It was an ExceptionGroup traceback from inside the app's start-up."""
    world = write_hl7_world(tmp_path / "interface")
    env = {**os.environ, "PYTHONPATH": str(Path("src").resolve()), "ASSAY_HOME": str(tmp_path)}
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        command = [sys.executable, "-c", "from assay.cli import main; main()", "serve"]
        command += ["--worlds", str(world), "--port", str(free_port()), "--sftp-port", str(taken)]
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"error: --sftp-port: 127.0.0.1:{taken}: Address already in use\n"
