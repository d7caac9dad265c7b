"""`assay run --executor` and `--ray-address`: bad values are one line and exit 2, before any run."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

SHOP = Path(__file__).resolve().parents[2] / "worlds" / "shop"


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--executor", "dask"], "error: --executor: 'dask' is neither pool nor ray\n"),
        (["--ray-address", "127.0.0.1:6379"], "error: --ray-address: only with --executor ray\n"),
        (
            ["--executor", "pool", "--ray-address", "auto"],
            "error: --ray-address: only with --executor ray\n",
        ),
    ],
)
def test_bad_executor_options_are_one_line_and_exit_2(assay, args, line) -> None:
    ran = assay("run", SHOP, *args)
    assert (ran.code, ran.err) == (2, line)
    assert ran.out == ""


def test_ray_missing_is_one_line_and_exit_2(assay, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if it were not installed
    ran = assay("run", SHOP, "--executor", "ray")
    assert (ran.code, ran.err) == (
        2,
        "error: --executor ray: the ray package is missing; pip install 'assay[ray]'\n",
    )


def test_an_address_nobody_answers_is_one_line_and_exit_2(assay) -> None:
    pytest.importorskip("ray")
    with socket.socket() as closed:  # a free port, then nobody listening on it
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    ran = assay("run", SHOP, "--executor", "ray", "--ray-address", f"127.0.0.1:{port}")
    assert ran.code == 2
    assert ran.err.startswith(f"error: --ray-address: cannot connect to Ray at 127.0.0.1:{port}: ")
    assert ran.err.count("\n") == 1


def test_an_address_that_is_no_address_is_one_line_and_exit_2(assay) -> None:
    pytest.importorskip("ray")
    ran = assay("run", SHOP, "--executor", "ray", "--ray-address", "nowhere")
    assert ran.code == 2
    assert ran.err.startswith("error: --ray-address: cannot connect to Ray at nowhere: ")
    assert ran.err.count("\n") == 1


def test_a_run_with_the_pool_never_imports_ray(tmp_path) -> None:
    script = (
        "import sys\n"
        "from assay.cli.app import run_app\n"
        f"sys.argv = ['assay', 'run', {str(SHOP)!r}, '--task', 'update-address', '--json']\n"
        "try:\n"
        "    run_app()\n"
        "except SystemExit as done:\n"
        "    assert not done.code, done.code\n"
        "assert 'ray' not in sys.modules, 'ray was imported'\n"
    )
    env = {**os.environ, "ASSAY_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
