"""A world on a PostgreSQL server that asks every role for its password (scram-sha-256 in
pg_hba.conf, no trust line): assay's own roles still work, and an agent without the sandbox
that connects as the superuser is refused, as docs/agents.md tells a user to set the server up."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from attackkit import attacker, run_json
from worldkit import write_world

BIN = Path("/usr/lib/postgresql/15/bin")
PASSWORD = "a-secret-of-the-operator"


def _postgres_uid() -> int | None:
    import pwd

    try:
        return pwd.getpwnam("postgres").pw_uid
    except KeyError:
        return None


pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not (BIN / "initdb").exists() or _postgres_uid() is None,
    reason="needs root, PostgreSQL 15's initdb and a postgres user",
)


def as_postgres(*argv: str | Path) -> None:
    subprocess.run(
        ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--", *map(str, argv)],
        check=True,
        stdout=subprocess.DEVNULL,  # the server started keeps what it inherits open
        stderr=subprocess.DEVNULL,
        timeout=60,
    )


@pytest.fixture(scope="module")
def password_server() -> Iterator[int]:
    """A server of its own on a free loopback port whose every role needs its password."""
    folder = Path(tempfile.mkdtemp(prefix="assay-scram-"))  # pytest's own is root's alone
    shutil.chown(folder, "postgres")
    secret = folder / "password"
    secret.write_text(PASSWORD)
    shutil.chown(secret, "postgres")
    data = folder / "data"
    as_postgres(BIN / "initdb", "-D", data, "-U", "admin", f"--pwfile={secret}",
                "--auth=scram-sha-256", "-E", "UTF8", "--locale=C")  # fmt: skip
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1"
    as_postgres(BIN / "pg_ctl", "-D", data, "-o", options, "-l", folder / "log", "-w", "start")
    try:
        yield port
    finally:
        as_postgres(BIN / "pg_ctl", "-D", data, "-m", "immediate", "stop")
        shutil.rmtree(folder, ignore_errors=True)


def test_a_world_runs_on_a_server_that_asks_every_role_for_its_password(tmp_path, password_server):
    world = write_world(tmp_path / "desk")
    url = f"postgresql://admin:{PASSWORD}@127.0.0.1:{password_server}/postgres"
    (run,) = run_json(world, "--agent", "reference", "--world-db", url, cwd=tmp_path)
    assert (run["outcome"], run["error"]) == ("verified", None)


def test_without_trust_the_superuser_is_refused_to_an_agent_without_the_sandbox(
    tmp_path, password_server
):
    world = write_world(tmp_path / "desk")
    url = f"postgresql://admin:{PASSWORD}@127.0.0.1:{password_server}/postgres"
    server = f"host=127.0.0.1 port={password_server} user=admin"
    agent = attacker(tmp_path, {"prefix": "", "server": server})
    bare = tmp_path / "no-bwrap"
    bare.mkdir()
    (run,) = run_json(
        world, "--agent", f"{agent}:PostgresSuperuser", "--world-db", url, cwd=tmp_path,
        env={"PATH": str(bare)},
    )  # fmt: skip
    assert run["agent_isolation"] == "process"
    assert (run["output"], run["outcome"]) == ("cannot connect: OperationalError", "not_achieved")
    assert json.dumps(run).count(PASSWORD) == 0
