"""`assay run --executor ray --ray-address ADDR` on a Ray cluster started apart from it, as on
more than one machine (`ray start --head`): the same results as one process, and a cancelled run
resumed there (docs/parallel.md). One Ray start: it costs seconds."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from storekit import query
from worldkit import SHOP

pytest.importorskip("ray")

BIN = Path(sys.executable).parent
NAP = f"{Path(__file__).with_name('nap_agent.py')}:NapAgent"  # 0.5 s per task run
# a cluster with token authentication (Ray's default) is reached with this set where assay runs
ENV = {**os.environ, "RAY_AUTH_MODE": "token"}
HEAD_OPTIONS = ("--block", "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[str]:
    """The address of a two-CPU Ray head started for this module, in a process group of its
    own, which is killed whole after."""
    port = free_port()
    log = tmp_path_factory.mktemp("ray") / "head.log"
    # a Ray directory of its own, so that no other ray.init on this machine finds this cluster
    # (a short path: Ray's sockets live under it)
    own = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    with log.open("w") as out:
        head = subprocess.Popen(
            [BIN / "ray", "start", "--head", f"--port={port}", f"--temp-dir={own}", *HEAD_OPTIONS],
            env=ENV,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120
        while "ray start --address" not in log.read_text():  # printed once the head is up
            assert head.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        os.killpg(head.pid, signal.SIGKILL)
        head.wait()
        shutil.rmtree(own, ignore_errors=True)


def env_in(cwd: Path) -> dict[str, str]:
    """The environment of `assay run` in `cwd`; the actors get its ASSAY_HOME too."""
    return {**ENV, "ASSAY_HOME": str(cwd / ".assay")}


def assay(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BIN / "assay", *args],
        cwd=cwd,
        env=env_in(cwd),
        capture_output=True,
        text=True,
        timeout=300,
    )


def kept(stdout: str) -> list[tuple]:
    runs = json.loads(stdout)["task_runs"]
    return [
        (r["task_id"], r["repeat"], r["outcome"], r["score"], r["final_state_hash"]) for r in runs
    ]


def test_a_run_on_the_cluster_matches_one_process(cluster, tmp_path) -> None:
    args = ["run", SHOP, "--repeats", "2", "--json", "--store", f"sqlite:///{tmp_path / 'r.db'}"]
    on_ray = assay(*args, "--executor", "ray", "--ray-address", cluster, cwd=tmp_path)
    here = assay(*args, "--workers", "1", cwd=tmp_path)
    assert on_ray.returncode == 0, on_ray.stderr
    assert here.returncode == 0, here.stderr
    assert kept(on_ray.stdout) == kept(here.stdout)
    assert len(kept(here.stdout)) == 30 and {row[2] for row in kept(here.stdout)} == {"verified"}


def test_a_cancelled_run_is_resumed_on_the_cluster(cluster, tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'records.db'}"
    on_ray = ["--executor", "ray", "--ray-address", cluster, "--store", url, "--json"]
    process = subprocess.Popen(
        [BIN / "assay", "run", SHOP, "--agent", NAP, "--workers", "2", *on_ray],
        cwd=tmp_path,
        env=env_in(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a shell running the suite in the background may ignore SIGINT, and children inherit that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    finished = "SELECT count(*) FROM task_runs WHERE phase = 'completed'"
    deadline = time.monotonic() + 120
    while not _count(url, finished) >= 2:
        assert process.poll() is None and time.monotonic() < deadline, process.stderr.read()
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    cancelled = json.loads(out)["benchmark_run"]
    assert cancelled["phase"] == "cancelled" and cancelled["task_runs"] == 15

    resumed = assay("run", "--resume", cancelled["id"], *on_ray, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    shown = json.loads(resumed.stdout)
    assert shown["benchmark_run"]["phase"] == "completed"
    assert len(shown["task_runs"]) == 15
    assert {run["outcome"] for run in shown["task_runs"]} == {"not_achieved"}


def _count(url: str, sql: str) -> int:
    try:
        return query(url, sql)[0][0]
    except Exception:  # the store may not exist yet
        return 0
