"""The file tree over SFTP against a real `assay serve --sftp-port`: Debian's OpenSSH `sftp` in
batch mode and paramiko list, put, get, make and remove folders, rename (SSH_FXP_RENAME refuses an
existing target, posix-rename@openssh.com replaces it), chmod and stat; a session sees the live
tree, folders a world declares are there at login, and an empty folder stays until rmdir."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import urllib.request
from pathlib import Path

import paramiko
import pytest
from apikit import KEY, Server
from healthkit import ROSTER, write_files_world

SFTP = shutil.which("sftp")
needs_openssh = pytest.mark.skipif(SFTP is None, reason="OpenSSH's sftp client is not installed")


def call(url: str, body: dict | bytes | None, token: str, method: str = "POST") -> dict:
    data = body if isinstance(body, bytes) else json.dumps(body or {}).encode()
    request = urllib.request.Request(
        url,
        data=data,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method=method,
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`assay serve --sftp-port 0` over the drop-box world, as a real process: its base URL."""
    root = tmp_path_factory.mktemp("sftp")
    world = write_files_world(root / "dropbox")
    toml = world / "world.toml"
    declared = 'writable = ["outbound/**", "archive/**"]\nfolders = ["outbound/claims"]'
    toml.write_text(toml.read_text().replace('writable = ["outbound/**", "archive/**"]', declared))
    options = (
        "--worlds",
        str(world),
        "--sftp-port",
        "0",
        "--sftp-host-key",
        str(root / "host_key"),
    )
    served = Server(root / "api.db", root / "home", *options).start()
    try:
        yield served.url
    finally:
        served.stop()


class Run:
    """A new benchmark run over the server, its task run started."""

    def __init__(self, base: str):
        record = call(f"{base}/v1/benchmark-runs", {"benchmark": "dropbox"}, KEY)
        self.base, self.token, self.user = base, record["bearer_token"], record["benchmark_run_id"]
        self.files = base + record["endpoints"]["files"]
        host, port = record["endpoints"]["sftp"].removeprefix("sftp://").split(":")
        self.host, self.port = host, int(port)
        call(f"{base}{record['task_runs'][0]['start_url']}", None, self.token)

    def listing(self) -> list[str]:
        with urllib.request.urlopen(self._get(self.files), timeout=30) as answer:
            return [item["path"] for item in json.loads(answer.read())["files"]]

    def read(self, path: str) -> str:
        with urllib.request.urlopen(self._get(f"{self.files}/{path}"), timeout=30) as answer:
            return json.loads(answer.read())["content"]

    def _get(self, url: str) -> urllib.request.Request:
        return urllib.request.Request(url, headers={"Authorization": f"Bearer {self.token}"})

    def put_over_http(self, path: str, text: str) -> None:
        call(f"{self.files}/{path}", text.encode(), self.token, method="PUT")

    def openssh(self, commands: str, tmp_path: Path) -> subprocess.CompletedProcess:
        """`sftp -b` with the commands; the password comes from SSH_ASKPASS (`BatchMode=no`
        first, since ssh keeps the first value and `-b` would turn password logins off)."""
        askpass = tmp_path / "askpass.sh"
        askpass.write_text(f"#!/bin/sh\necho '{self.token}'\n")
        askpass.chmod(askpass.stat().st_mode | stat.S_IEXEC)
        batch = tmp_path / "batch.txt"
        batch.write_text(commands)
        env = {**os.environ, "SSH_ASKPASS": str(askpass), "SSH_ASKPASS_REQUIRE": "force"}
        options = ["-o", "BatchMode=no", "-o", "StrictHostKeyChecking=no"]
        options += ["-o", "UserKnownHostsFile=/dev/null", "-o", "PreferredAuthentications=password"]
        command = [SFTP, *options, "-b", str(batch), "-P", str(self.port)]
        return subprocess.run(
            [*command, f"{self.user}@{self.host}"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            cwd=tmp_path,
        )

    def paramiko(self) -> tuple[paramiko.SSHClient, paramiko.SFTPClient]:
        client = paramiko.SSHClient()
        client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
        client.connect(
            self.host,
            self.port,
            username=self.user,
            password=self.token,
            allow_agent=False,
            look_for_keys=False,
            timeout=30,
        )
        return client, client.open_sftp()


@needs_openssh
def test_openssh_sftp_lists_puts_gets_renames_over_a_file_and_keeps_folders(server, tmp_path):
    run = Run(server)
    (tmp_path / "roster.csv").write_text(ROSTER)
    (tmp_path / "old.csv").write_text("old\n")
    done = run.openssh(
        "ls -l\n"
        "ls outbound/claims\n"  # declared: there at login, empty
        "mkdir outbound/roster\n"
        "put roster.csv outbound/roster/2026-03-02.csv\n"
        "put old.csv outbound/roster/old.csv\n"
        "rename outbound/roster/2026-03-02.csv outbound/roster/old.csv\n"  # posix-rename
        "get outbound/roster/old.csv fetched.csv\n"
        "get inbox/referrals/R-17.txt referral.txt\n"
        "mkdir outbound/empty\n"
        "chmod 700 outbound\n"
        "chmod 600 outbound/roster/old.csv\n"
        "ls -l outbound/roster\n"
        "mkdir archive/gone\n"
        "rmdir archive/gone\n"
        "df .\n",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "fetched.csv").read_text() == ROSTER
    assert (tmp_path / "referral.txt").read_text().startswith("Referral R-17")
    top = done.stdout.split("sftp> ls outbound/claims")[0]
    assert [line.split()[0][0] for line in top.splitlines()[1:]] == ["d", "d", "d"]
    assert " outbound/roster/old.csv" not in top and "old.csv" in done.stdout
    assert run.listing() == ["inbox/referrals/R-17.txt", "outbound/roster/old.csv"]
    assert run.read("outbound/roster/old.csv") == ROSTER
    again = run.openssh("ls outbound\nls archive\n", tmp_path)  # a new session: the folder stayed
    assert "outbound/empty" in again.stdout and "archive/gone" not in again.stdout


@needs_openssh
def test_openssh_rename_onto_an_existing_file_replaces_it(server, tmp_path):
    run = Run(server)
    (tmp_path / "new.csv").write_text("new\n")
    (tmp_path / "old.csv").write_text("old\n")
    done = run.openssh(  # OpenSSH's `rename` uses posix-rename@openssh.com: rename(2)
        "put new.csv outbound/new.csv\nput old.csv outbound/old.csv\n"
        "rename outbound/new.csv outbound/old.csv\n",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert run.listing() == ["inbox/referrals/R-17.txt", "outbound/old.csv"]
    assert run.read("outbound/old.csv") == "new\n"


@needs_openssh
def test_openssh_chmod_on_a_writable_folder_is_accepted(server, tmp_path):
    run = Run(server)
    done = run.openssh("chmod 700 outbound\nchmod 755 archive\n", tmp_path)
    assert done.returncode == 0, done.stderr
    refused = run.openssh("chmod 700 inbox\n", tmp_path)
    assert refused.returncode != 0 and "Permission denied" in refused.stderr


def test_paramiko_plain_rename_refuses_an_existing_target_and_posix_rename_replaces_it(server):
    run = Run(server)
    client, sftp = run.paramiko()
    try:
        for name, text in (("a.txt", "a"), ("b.txt", "b")):
            with sftp.open(f"outbound/{name}", "w") as handle:
                handle.write(text)
        with pytest.raises(OSError):  # SSH_FXP_RENAME (filexfer-02 §6.5)
            sftp.rename("outbound/a.txt", "outbound/b.txt")
        sftp.posix_rename("outbound/a.txt", "outbound/b.txt")
    finally:
        client.close()
    assert run.read("outbound/b.txt") == "a"
    assert "outbound/a.txt" not in run.listing()


@needs_openssh
def test_openssh_sftp_is_refused_where_the_tree_is_read_only(server, tmp_path):
    run = Run(server)
    (tmp_path / "x.txt").write_text("x\n")
    for command in ("put x.txt inbox/x.txt", "rm inbox/referrals/R-17.txt", "mkdir inbox/new"):
        done = run.openssh(command + "\n", tmp_path)
        assert done.returncode != 0 and "Permission denied" in done.stderr, command
    refused = run.openssh("rmdir outbound\n", tmp_path)  # holds claims/: not empty
    assert refused.returncode != 0
    assert run.listing() == ["inbox/referrals/R-17.txt"]


@needs_openssh
def test_openssh_session_sees_a_file_written_over_http_after_it_opened(server, tmp_path):
    run = Run(server)
    writer = tmp_path / "writer.py"
    writer.write_text(
        "import urllib.request\n"
        f"request = urllib.request.Request({run.files + '/outbound/late.txt'!r}, data=b'late\\n', "
        f"method='PUT', headers={{'Authorization': 'Bearer {run.token}'}})\n"
        "urllib.request.urlopen(request, timeout=30).read()\n"
    )
    done = run.openssh(  # `!` runs the HTTP write from inside the open session
        f"ls outbound\n!{sys.executable} {writer}\nls outbound\nget outbound/late.txt late.txt\n",
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "late.txt").read_text() == "late\n"


def test_paramiko_renames_stats_chmods_and_sees_the_live_tree(server):
    run = Run(server)
    client, sftp = run.paramiko()
    try:
        assert sorted(sftp.listdir(".")) == ["archive", "inbox", "outbound"]
        assert sftp.listdir("outbound/claims") == []
        with sftp.open("outbound/claims/837P.x12", "w") as handle:
            handle.write("ISA*first~")
        with sftp.open("outbound/claims/next.x12", "w") as handle:
            handle.write("ISA*second~")
        with pytest.raises(OSError):  # SSH_FXP_RENAME: the target exists
            sftp.rename("outbound/claims/next.x12", "outbound/claims/837P.x12")
        sftp.posix_rename("outbound/claims/next.x12", "outbound/claims/837P.x12")
        found = sftp.stat("outbound/claims/837P.x12")
        assert (stat.S_ISREG(found.st_mode), found.st_size) == (True, len("ISA*second~"))
        assert stat.S_ISDIR(sftp.stat("outbound").st_mode)
        sftp.chmod("outbound", 0o700)  # a writable folder: accepted
        sftp.chmod("outbound/claims/837P.x12", 0o600)
        with pytest.raises(PermissionError):
            sftp.chmod("inbox/referrals/R-17.txt", 0o600)
        run.put_over_http("outbound/from-http.txt", "written over HTTP\n")
        assert "from-http.txt" in sftp.listdir("outbound")
        with sftp.open("outbound/from-http.txt") as handle:
            assert handle.read().decode() == "written over HTTP\n"
        sftp.mkdir("archive/empty")
        assert stat.S_ISDIR(sftp.stat("archive/empty").st_mode)
        with pytest.raises(OSError):
            sftp.rmdir("outbound/claims")  # not empty
        sftp.rmdir("archive/empty")
        with pytest.raises(FileNotFoundError):
            sftp.stat("archive/empty")
    finally:
        client.close()
    assert run.read("outbound/claims/837P.x12") == "ISA*second~"
    assert "outbound/claims/next.x12" not in run.listing()


def test_an_empty_folder_stays_between_sessions_and_a_new_run_starts_without_it(server):
    run = Run(server)
    client, sftp = run.paramiko()
    try:
        sftp.mkdir("outbound/kept")
    finally:
        client.close()
    client, sftp = run.paramiko()
    try:
        assert "kept" in sftp.listdir("outbound")
    finally:
        client.close()
    fresh = Run(server)
    client, sftp = fresh.paramiko()
    try:
        assert sorted(sftp.listdir("outbound")) == ["claims"]
    finally:
        client.close()
