"""The file tree over HTTP and over real SFTP (asyncssh's client, and OpenSSH's `sftp` when it is
installed): every write, move and delete an action of the started task run; refusals clear and
lossless; the same actions score as the same calls made in process."""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import subprocess
import warnings

import asyncssh
import pytest
from apikit import OPERATOR_KEY, new_run
from healthkit import ROSTER, write_files_world

from assay.api import open_api

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


@pytest.fixture
def served(tmp_path):
    """The API over the drop-box world with SFTP on a free port: (client, run, headers)."""
    world = write_files_world(tmp_path / "dropbox")
    app, _ = open_api(
        [world],
        store=str(tmp_path / "api.db"),
        operator_key=OPERATOR_KEY,
        sftp_port=0,
        sftp_host_key=tmp_path / "keys" / "host",
    )
    with TestClient(app) as api:
        run, headers = new_run(api, "dropbox")
        yield api, run, headers


def sftp_session(url: str, user: str, password: str, work) -> object:
    host, port = url.removeprefix("sftp://").split(":")

    async def main():
        async with (
            asyncssh.connect(
                host, int(port), username=user, password=password, known_hosts=None
            ) as connection,
            connection.start_sftp_client() as sftp,
        ):
            return await work(sftp)

    return asyncio.run(main())


def test_http_file_routes_write_move_read_and_refuse(served):
    api, run, headers = served
    base = run["endpoints"]["files"]
    assert run["endpoints"]["files_inbox"] == f"{base}/inbox"
    (task_run,) = run["task_runs"]
    api.post(task_run["start_url"], headers=headers)
    inbox = api.get(f"{base}/inbox", headers=headers).json()
    assert [item["path"] for item in inbox["files"]] == ["inbox/referrals/R-17.txt"]
    put = api.put(f"{base}/outbound/roster/2026-03-02.csv", content=ROSTER, headers=headers)
    assert (put.status_code, put.json()["size"]) == (200, len(ROSTER))
    forged = api.put(f"{base}/inbox/x.txt", content="x", headers=headers)
    assert (forged.status_code, forged.json()["error"]["code"]) == (403, "read_only")
    huge = api.put(f"{base}/outbound/big.txt", content="x" * 2001, headers=headers)
    assert (huge.status_code, huge.json()["error"]["code"]) == (413, "too_large")
    moved = api.post(
        f"{base}/move",
        json={"src": "inbox/referrals/R-17.txt", "dst": "archive/R-17.txt"},
        headers=headers,
    )
    assert moved.json()["moved_from"] == "inbox/referrals/R-17.txt"
    read = api.get(f"{base}/archive/R-17.txt", headers=headers).json()
    assert read["content"].startswith("Referral R-17")
    gone = api.get(f"{base}/inbox/referrals/R-17.txt", headers=headers)
    assert gone.status_code == 404
    done = api.post(task_run["complete_url"], json={"output": "ok"}, headers=headers).json()
    assert (done["outcome"], done["reward"]) == ("verified", 1)


def test_sftp_upload_and_rename_are_actions_and_refusals_lose_nothing(served):
    api, run, headers = served
    url, user, token = run["endpoints"]["sftp"], run["benchmark_run_id"], run["bearer_token"]
    assert url.startswith("sftp://127.0.0.1:")
    (task_run,) = run["task_runs"]
    api.post(task_run["start_url"], headers=headers)

    async def work(sftp):
        seen = await sftp.listdir("inbox/referrals")
        await sftp.makedirs("outbound/roster", exist_ok=True)
        async with sftp.open("outbound/roster/2026-03-02.csv", "w") as handle:
            await handle.write(ROSTER)
        refused = []
        for attempt in (
            lambda: sftp.open("inbox/forged.txt", "w"),
            lambda: sftp.remove("inbox/referrals/R-17.txt"),
            lambda: sftp.symlink("inbox/referrals/R-17.txt", "outbound/link"),
            lambda: sftp.open("../../etc/passwd", "w"),
        ):
            try:
                await attempt()
            except asyncssh.SFTPError as error:
                refused.append(type(error).__name__ + ": " + error.reason)
        try:
            async with sftp.open("outbound/big.txt", "w") as handle:
                await handle.write("x" * 2001)
        except asyncssh.SFTPError as error:
            refused.append(error.reason)
        await sftp.rename("inbox/referrals/R-17.txt", "archive/R-17.txt")
        return seen, refused, sorted(await sftp.listdir("archive"))

    seen, refused, archive = sftp_session(url, user, token, work)
    assert seen[-1] == "R-17.txt" and "R-17.txt" in archive
    assert refused[0].startswith("SFTPPermissionDenied: inbox/forged.txt is read-only")
    assert refused[1].startswith("SFTPPermissionDenied: inbox/referrals/R-17.txt is read-only")
    assert refused[2] == "SFTPPermissionDenied: symbolic links are refused"
    assert "read-only" in refused[3]  # chrooted: ../../etc/passwd is the tree's etc/passwd
    assert refused[4] == "a file may hold at most 2000 bytes"
    listing = api.get(run["endpoints"]["files"], headers=headers).json()["files"]
    assert [item["path"] for item in listing] == [
        "archive/R-17.txt",
        "outbound/roster/2026-03-02.csv",
    ]
    trajectory = api.get(f"/v1/task-runs/{task_run['id']}", headers=headers).json()
    done = api.post(task_run["complete_url"], json={"output": "ok"}, headers=headers).json()
    assert (done["outcome"], done["reward"]) == ("verified", 1)
    assert trajectory["phase"] == "started"


def test_sftp_refuses_a_wrong_password_and_another_runs_name(served):
    _api, run, _headers = served
    url, user = run["endpoints"]["sftp"], run["benchmark_run_id"]
    for name, password in ((user, "wrong"), ("br_other", run["bearer_token"])):
        with pytest.raises(asyncssh.PermissionDenied):
            sftp_session(url, name, password, lambda sftp: sftp.listdir("."))


@pytest.mark.skipif(shutil.which("sftp") is None, reason="OpenSSH's sftp client is not installed")
def test_openssh_sftp_client_uploads_a_file(served, tmp_path):
    api, run, headers = served
    (task_run,) = run["task_runs"]
    api.post(task_run["start_url"], headers=headers)
    host, port = run["endpoints"]["sftp"].removeprefix("sftp://").split(":")
    (tmp_path / "roster.csv").write_text(ROSTER)
    askpass = tmp_path / "askpass.sh"
    askpass.write_text(f"#!/bin/sh\necho '{run['bearer_token']}'\n")
    askpass.chmod(askpass.stat().st_mode | stat.S_IEXEC)
    batch = tmp_path / "commands"  # on stdin: `-b` would turn password logins off
    batch.write_text(
        f"mkdir outbound/roster\nput {tmp_path / 'roster.csv'} outbound/roster/2026-03-02.csv\n"
    )
    env = {**os.environ, "SSH_ASKPASS": str(askpass), "SSH_ASKPASS_REQUIRE": "force"}
    done = subprocess.run(
        [
            "sftp",
            "-P",
            port,
            "-o",
            "StrictHostKeyChecking=no",
            "-o",
            "UserKnownHostsFile=/dev/null",
            "-o",
            "BatchMode=no",
            "-o",
            "PreferredAuthentications=password,keyboard-interactive",
            f"{run['benchmark_run_id']}@{host}",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        input=batch.read_text(),
    )
    assert done.returncode == 0, done.stderr
    read = api.get(f"{run['endpoints']['files']}/outbound/roster/2026-03-02.csv", headers=headers)
    assert read.json().get("content") == ROSTER, (read.text, done.stdout, done.stderr)
